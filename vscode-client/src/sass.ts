// "Show SASS": the kernel's SASS in a read-only document beside the source, grouped by source
// line (the server's `kernelpro.sass` command), kept in step like Compiler Explorer: the cursor
// in one highlights and reveals the matching lines in the other.
import type { Disposable, Event, EventEmitter, TextEditor, TextEditorDecorationType, Uri } from 'vscode';
import {
    createEventEmitter,
    createHighlight,
    highlightLines,
    makeUri,
    onDidChangeDiagnostics,
    onDidChangeTextEditorSelection,
    showDocumentBeside,
    visibleTextEditors,
} from './vscodeapi';

export const SASS_SCHEME = 'kernelpro-sass';

export interface SassBlock {
    line: number | null; // 1-based source line (in the editor's current text), null: none
    start: number; // 0-based line of the block's header in the SASS text
    end: number; // its last instruction
}

export interface SassDocument {
    ok: boolean;
    reason?: string;
    uri?: string;
    version?: number;
    text?: string;
    blocks?: SassBlock[];
}

// The SASS spans (0-based, inclusive) of a source line (1-based).
export function sassSpans(blocks: SassBlock[], sourceLine: number): [number, number][] {
    return blocks.filter((b) => b.line === sourceLine).map((b) => [b.start, b.end]);
}

// The source line (1-based) of a SASS line (0-based), or undefined outside any block with a line.
export function sourceLineOf(blocks: SassBlock[], sassLine: number): number | undefined {
    const b = blocks.find((x) => x.start <= sassLine && sassLine <= x.end);
    return b && b.line !== null ? b.line : undefined;
}

export class SassView implements Disposable {
    private readonly docs = new Map<string, SassDocument>(); // SASS uri -> the last answer
    private readonly uris = new Map<string, Uri>();
    private readonly changed: EventEmitter<Uri> = createEventEmitter<Uri>();
    readonly onDidChange: Event<Uri> = this.changed.event;
    private readonly highlight: TextEditorDecorationType = createHighlight();
    private readonly subs: Disposable[];

    constructor(private readonly fetch: (sourceUri: string) => Promise<SassDocument>) {
        this.subs = [
            onDidChangeTextEditorSelection((e) => this.follow(e.textEditor, e.selections[0].active.line)),
            onDidChangeDiagnostics((e) => e.uris.forEach((u) => this.refresh(u.toString()))),
        ];
    }

    sassUri(source: Uri): Uri {
        const name = source.path.split('/').pop() || 'kernel.cu';
        return makeUri(SASS_SCHEME, `/${name} · SASS`, source.toString()); // no extension: plain text
    }

    async provideTextDocumentContent(uri: Uri): Promise<string> {
        const doc = await this.fetch(uri.query);
        this.docs.set(uri.toString(), doc);
        this.uris.set(uri.toString(), uri);
        if (!doc.ok) {
            return `// KernelPro: no SASS for ${uri.query}: ${doc.reason ?? 'unknown reason'}\n`;
        }
        return doc.text ?? '';
    }

    // Opens the SASS of `editor`'s file beside it and highlights the cursor's line there.
    async show(editor: TextEditor): Promise<TextEditor> {
        const uri = this.sassUri(editor.document.uri);
        const sass = await showDocumentBeside(uri, true);
        this.follow(editor, editor.selection.active.line);
        return sass;
    }

    // The server re-profiled a file: its open SASS document is fetched again.
    refresh(sourceUri: string): void {
        for (const uri of this.uris.values()) {
            if (uri.query === sourceUri) {
                this.changed.fire(uri);
            }
        }
    }

    // The cursor moved to `line` (0-based) of `editor`: highlight the matching lines on both sides
    // and scroll the other side to them; the side clicked in stays where it is.
    follow(editor: TextEditor, line: number): void {
        const uri = editor.document.uri;
        if (uri.scheme === SASS_SCHEME) {
            const doc = this.docs.get(uri.toString());
            const src = doc?.blocks ? sourceLineOf(doc.blocks, line) : undefined;
            const target = visibleTextEditors().find((e) => e.document.uri.toString() === uri.query);
            if (!doc?.blocks || !target) return;
            highlightLines(target, this.highlight, src === undefined ? [] : [[src - 1, src - 1]], true);
            const spans = src === undefined ? [] : sassSpans(doc.blocks, src);
            highlightLines(editor, this.highlight, spans, false);
            return;
        }
        const key = this.sassUri(uri).toString();
        const doc = this.docs.get(key);
        const target = visibleTextEditors().find((e) => e.document.uri.toString() === key);
        if (!doc?.blocks || !target) return;
        const spans = sassSpans(doc.blocks, line + 1);
        highlightLines(target, this.highlight, spans, true);
        highlightLines(editor, this.highlight, spans.length > 0 ? [[line, line]] : [], false);
    }

    dispose(): void {
        this.subs.forEach((d) => d.dispose());
        this.changed.dispose();
        this.highlight.dispose();
    }
}
