// A stand-in for src/vscodeapi.ts: same exports, no VS Code. Tests set the
// state below (settings, extensions, answers) and read what was recorded.
/* eslint-disable @typescript-eslint/no-explicit-any */

type Listener<T> = (e: T) => unknown;

export class FakeEmitter<T> {
    listeners: Listener<T>[] = [];
    event = (listener: Listener<T>) => {
        this.listeners.push(listener);
        return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
    };
    fire(e: T): void {
        this.listeners.slice().forEach((l) => l(e));
    }
    dispose(): void {
        this.listeners = [];
    }
}

export const state = {
    settings: {} as Record<string, unknown>, // full keys: "kernelpro.arch"
    extensions: {} as Record<string, any>,
    answers: [] as (string | undefined)[], // replies to showWarningMessage, in order
    messages: [] as { kind: string; message: string; items: string[] }[],
    commands: [] as { command: string; args: unknown[] }[],
    watchers: [] as { folder: string; glob: string; create: FakeEmitter<unknown>; change: FakeEmitter<unknown>; del: FakeEmitter<unknown> }[],
    statusItems: [] as any[],
    activeEditor: undefined as any,
};

export function reset(): void {
    state.settings = {};
    state.extensions = {};
    state.answers = [];
    state.messages = [];
    state.commands = [];
    state.watchers = [];
    state.statusItems = [];
    state.activeEditor = undefined;
    sassState.opened = [];
    sassState.editors = [];
    sassState.highlights = [];
}

export function getConfiguration(section: string) {
    return {
        get<T>(key: string, def?: T): T | undefined {
            const full = `${section}.${key}`;
            return (full in state.settings ? state.settings[full] : def) as T | undefined;
        },
    };
}

export function onDidChangeConfiguration() {
    return { dispose() {} };
}

export function getWorkspaceFolders() {
    return [];
}

export function getExtension(id: string) {
    return state.extensions[id];
}

export function createOutputChannel(name: string) {
    const lines: string[] = [];
    return { name, lines, appendLine: (l: string) => lines.push(l), show() {}, dispose() {} };
}

export function createStatusBarItem() {
    const item = { text: '', tooltip: '', command: undefined, name: '', backgroundColor: undefined, shown: false, show() { item.shown = true; }, dispose() {} };
    state.statusItems.push(item);
    return item;
}

export function themeColor(id: string) {
    return { id };
}

export function themeIcon(id: string) {
    return { id };
}

export function registerCommand() {
    return { dispose() {} };
}

export async function executeCommand(command: string, ...args: unknown[]) {
    state.commands.push({ command, args });
    return undefined;
}

export function getActiveTextEditor() {
    return state.activeEditor;
}

function record(kind: string, message: string, items: string[]) {
    state.messages.push({ kind, message, items });
}

export async function showErrorMessage(message: string, ...items: string[]) {
    record('error', message, items);
    return undefined;
}

export async function showWarningMessage(message: string, _modal: boolean, ...items: string[]) {
    record('warning', message, items);
    return state.answers.shift();
}

export async function showInformationMessage(message: string, ...items: string[]) {
    record('info', message, items);
    return undefined;
}

export async function showQuickPick() {
    return undefined;
}

export function fileUri(fsPath: string) {
    return { scheme: 'file', path: fsPath, fsPath, query: '', toString: () => `file://${fsPath}` };
}

export function makeUri(scheme: string, path: string, query: string) {
    return { scheme, path, fsPath: path, query, toString: () => `${scheme}:${path}?${encodeURIComponent(query)}` };
}

export function parseUri(value: string) {
    return { toString: () => value };
}

export function createEventEmitter<T>() {
    return new FakeEmitter<T>();
}

export function createTreeView() {
    return { dispose() {} };
}

export function registerTextDocumentContentProvider() {
    return { dispose() {} };
}

export function createFileSystemWatcher(folder: string, glob: string) {
    const w = { folder, glob, create: new FakeEmitter<unknown>(), change: new FakeEmitter<unknown>(), del: new FakeEmitter<unknown>() };
    state.watchers.push(w);
    return { onDidCreate: w.create.event, onDidChange: w.change.event, onDidDelete: w.del.event, dispose() {} };
}

export async function openFile() {}

// --- the SASS view ---
export const sassState = {
    opened: [] as any[],
    editors: [] as any[],
    highlights: [] as { editor: any; spans: [number, number][] }[],
    selection: new FakeEmitter<any>(),
    diagnostics: new FakeEmitter<any>(),
};

export async function showDocumentBeside(uri: any) {
    sassState.opened.push(uri);
    const editor = { document: { uri }, id: `sass-${sassState.opened.length}` };
    sassState.editors.push(editor);
    return editor;
}

export function visibleTextEditors() {
    return sassState.editors;
}

export function onDidChangeTextEditorSelection(listener: (e: any) => unknown) {
    return sassState.selection.event(listener);
}

export function onDidChangeDiagnostics(listener: (e: any) => unknown) {
    return sassState.diagnostics.event(listener);
}

export function createHighlight() {
    return { dispose() {} };
}

export function highlightLines(editor: any, _type: unknown, spans: [number, number][]) {
    sassState.highlights.push({ editor, spans });
}
