// The "KernelPro Candidates" tree view and its context-menu commands. Listing, applying and
// deleting go through `kernelpro candidates ... --json` (the one candidate store); only the
// diff view and checkout use git here.
import * as path from 'path';
import type { Disposable, Event, EventEmitter, TreeDataProvider, TreeItem, Uri } from 'vscode';
import { CliError, Runner } from './cli';
import { Candidate, CandidateRecord, candidateFiles, fromRecord, git, isDirty, repoRoot, showFile } from './git';
import { requireTrust } from './trust';
import {
    createEventEmitter,
    createFileSystemWatcher,
    executeCommand,
    fileUri,
    getWorkspaceFolders,
    isWorkspaceTrusted,
    makeUri,
    showErrorMessage,
    showInformationMessage,
    showWarningMessage,
    themeIcon,
} from './vscodeapi';

export const VIEW_ID = 'kernelpro.candidates';
export const GIT_SCHEME = 'kernelpro-git';
export const CANDIDATE_CONTEXT = 'kernelpro.candidate';

// vscode.TreeItemCollapsibleState, as numbers so this module needs no value import.
const NONE = 0;
const COLLAPSED = 1;
const EXPANDED = 2;

export type Node =
    | { kind: 'repo'; root: string }
    | { kind: 'kernel'; root: string; kernel: string; candidates: Candidate[] }
    | { kind: 'candidate'; root: string; candidate: Candidate }
    | { kind: 'message'; text: string };

function num(v: number, digits: number): string {
    return v.toFixed(digits).replace(/\.?0+$/, '') || '0';
}

// "1.83× · 12.5 J → 9.1 J (-27%)"; "no data" without a usable note.
export function describeCandidate(c: Candidate): string {
    const n = c.note;
    if (!n) {
        return 'no data';
    }
    let text = `${n.speedup.toFixed(2)}×`;
    const { before, after } = n.energy_j;
    if (before !== null && after !== null) {
        const change = before > 0 ? ` (${after <= before ? '-' : '+'}${Math.round((Math.abs(after - before) / before) * 100)}%)` : '';
        text += ` · ${num(before, 3)} J → ${num(after, 3)} J${change}`;
    } else if (after !== null) {
        text += ` · ${num(after, 3)} J`;
    } else {
        text += ' · energy n/a';
    }
    return text;
}

function tooltip(c: Candidate): string {
    const lines = [c.branch, c.subject];
    if (c.note) {
        lines.push(`file: ${c.note.file}`, `objective: ${c.note.objective}`, `speedup: ${c.note.speedup}`);
    } else {
        lines.push(`no data: ${c.noteError ?? 'no note'}`);
    }
    return lines.filter((l) => l).join('\n');
}

export function groupByKernel(root: string, candidates: Candidate[]): Node[] {
    const groups = new Map<string, Candidate[]>();
    for (const c of candidates) {
        groups.set(c.kernel, [...(groups.get(c.kernel) ?? []), c]);
    }
    return [...groups.keys()].sort().map((kernel) => ({
        kind: 'kernel' as const,
        root,
        kernel,
        candidates: groups.get(kernel)!.sort((a, b) => a.run.localeCompare(b.run, undefined, { numeric: true })),
    }));
}

// The candidates of a repository, through the kernelpro command line.
export class CandidateStore {
    constructor(private readonly run: Runner) {}

    async list(root: string): Promise<Candidate[]> {
        return ((await this.run(['candidates', 'list', '--repo', root], root)) as CandidateRecord[]).map(fromRecord);
    }

    // Writes every file the candidate changes (the kernel and its launch spec); CliError
    // "uncommitted" when that would lose edits and `force` is not set.
    async apply(root: string, branch: string, force: boolean): Promise<{ files: string[] }> {
        const args = ['candidates', 'apply', branch, '--repo', root, ...(force ? ['--force'] : [])];
        return (await this.run(args, root)) as { files: string[] };
    }

    // Deletes the branch, its note and (with the run's last branch) the run's snapshot ref.
    async remove(root: string, branch: string): Promise<{ refs: string[] }> {
        return (await this.run(['candidates', 'delete', branch, '--repo', root], root)) as { refs: string[] };
    }
}

export class CandidatesProvider implements TreeDataProvider<Node>, Disposable {
    private readonly changed: EventEmitter<Node | undefined> = createEventEmitter<Node | undefined>();
    readonly onDidChangeTreeData: Event<Node | undefined> = this.changed.event;

    constructor(
        private readonly store: CandidateStore,
        private readonly roots: () => Promise<string[]> = workspaceRepos,
        private readonly trusted: () => boolean = isWorkspaceTrusted,
    ) {}

    refresh(): void {
        this.changed.fire(undefined);
    }

    async getChildren(node?: Node): Promise<Node[]> {
        if (!this.trusted()) {
            return []; // Restricted Mode: no git, no command line; the view's welcome text says why
        }
        if (!node) {
            const roots = await this.roots();
            if (roots.length === 1) {
                return this.kernels(roots[0]);
            }
            return roots.map((root) => ({ kind: 'repo' as const, root }));
        }
        switch (node.kind) {
            case 'repo':
                return this.kernels(node.root);
            case 'kernel':
                return node.candidates.map((candidate) => ({ kind: 'candidate' as const, root: node.root, candidate }));
            default:
                return [];
        }
    }

    private async kernels(root: string): Promise<Node[]> {
        try {
            return groupByKernel(root, await this.store.list(root));
        } catch (err) {
            return [{ kind: 'message', text: `Cannot list candidates: ${(err as Error).message}` }];
        }
    }

    getTreeItem(node: Node): TreeItem {
        switch (node.kind) {
            case 'repo':
                return { label: path.basename(node.root), tooltip: node.root, collapsibleState: EXPANDED, iconPath: themeIcon('repo') };
            case 'kernel':
                return {
                    label: node.kernel,
                    description: `${node.candidates.length} candidate${node.candidates.length === 1 ? '' : 's'}`,
                    collapsibleState: EXPANDED,
                    iconPath: themeIcon('symbol-function'),
                };
            case 'candidate':
                return {
                    label: node.candidate.run,
                    description: describeCandidate(node.candidate),
                    tooltip: tooltip(node.candidate),
                    collapsibleState: NONE,
                    contextValue: CANDIDATE_CONTEXT,
                    iconPath: themeIcon('git-branch'),
                    command: { command: 'kernelpro.candidates.showDiff', title: 'Show Diff', arguments: [node] },
                };
            case 'message':
                return { label: node.text, collapsibleState: NONE, iconPath: themeIcon('warning') };
        }
    }

    dispose(): void {
        this.changed.dispose();
    }
}

export async function workspaceRepos(): Promise<string[]> {
    if (!isWorkspaceTrusted()) {
        return [];
    }
    const roots = await Promise.all(getWorkspaceFolders().filter((f) => f.uri.scheme === 'file').map((f) => repoRoot(f.uri.fsPath)));
    return [...new Set(roots.filter((r): r is string => !!r))];
}

// Refreshes (debounced) when refs change under .git of any of `roots`.
export function watchRefs(roots: string[], refresh: () => void, delayMs = 300): Disposable[] {
    let timer: NodeJS.Timeout | undefined;
    const fire = () => {
        clearTimeout(timer);
        timer = setTimeout(refresh, delayMs);
    };
    const out: Disposable[] = [{ dispose: () => clearTimeout(timer) }];
    for (const root of roots) {
        const w = createFileSystemWatcher(root, '.git/{refs/**,packed-refs,HEAD}');
        out.push(w, w.onDidCreate(fire), w.onDidChange(fire), w.onDidDelete(fire));
    }
    return out;
}

// --- kernelpro-git: documents with a file's content at a revision ---

export function gitUri(root: string, rev: string, file: string): Uri {
    return makeUri(GIT_SCHEME, '/' + file, JSON.stringify({ root, rev, file }));
}

export const gitContentProvider = {
    provideTextDocumentContent(uri: Uri): Promise<string> {
        if (!isWorkspaceTrusted()) {
            // a kernelpro-git: link in the workspace must not make us run git there
            return Promise.resolve('// KernelPro: no git in Restricted Mode; trust the folder to see candidates\n');
        }
        const { root, rev, file } = JSON.parse(uri.query) as { root: string; rev: string; file: string };
        return showFile(root, rev, file);
    },
};

// --- commands; each returns what it did, for tests and logs ---

export type Outcome = 'done' | 'refused' | 'cancelled' | 'failed';

function target(node: unknown): { root: string; candidate: Candidate } | undefined {
    const n = node as Node | undefined;
    if (n && n.kind === 'candidate') {
        return n;
    }
    void showErrorMessage('KernelPro: pick a candidate in the KernelPro Candidates view first.');
    return undefined;
}

function inside(root: string, file: string): boolean {
    const rel = path.relative(root, path.resolve(root, file));
    return !!rel && rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

// The files a candidate changes, its kernel first; undefined (said) when there is none or the note
// names a file outside the repository.
async function filesOf(root: string, c: Candidate): Promise<string[] | undefined> {
    const files = await candidateFiles(root, c);
    if (files.length === 0) {
        void showErrorMessage(`KernelPro: cannot tell which file ${c.branch} changes (no note and no changed file).`);
        return undefined;
    }
    const outside = files.find((f) => !inside(root, f));
    if (outside !== undefined) {
        void showErrorMessage(`KernelPro: ${c.branch}: file "${outside}" in its note lies outside the repository ${root}.`);
        return undefined;
    }
    return files;
}

async function guarded(what: string, action: () => Promise<Outcome>): Promise<Outcome> {
    try {
        return await action();
    } catch (err) {
        void showErrorMessage(`KernelPro: ${what} failed: ${(err as Error).message}`);
        return 'failed';
    }
}

export function showDiff(node: unknown): Promise<Outcome> {
    if (!requireTrust('Show Diff of a candidate')) return Promise.resolve('refused'); // Restricted Mode
    const t = target(node);
    if (!t) return Promise.resolve('failed');
    const { root, candidate: c } = t;
    return guarded(`diff of ${c.branch}`, async () => {
        const files = await filesOf(root, c);
        if (!files) return 'failed';
        const diff = (file: string) => [gitUri(root, `${c.sha}^`, file), gitUri(root, c.sha, file)];
        if (files.length === 1) {
            await executeCommand('vscode.diff', ...diff(files[0]), `${path.basename(files[0])} (${c.branch} ↔ parent)`);
            return 'done';
        }
        // the kernel and its launch spec, as Apply writes them: one multi-file diff (VS Code 1.85+),
        // else one diff tab per file, the kernel's last so that it is the one in front
        try {
            const resources = files.map((f) => [fileUri(path.join(root, f)), ...diff(f)]);
            await executeCommand('vscode.changes', `${c.branch} ↔ parent (${files.length} files)`, resources);
        } catch {
            for (const f of [...files.slice(1), files[0]]) {
                await executeCommand('vscode.diff', ...diff(f), `${path.basename(f)} (${c.branch} ↔ parent)`, { preview: false });
            }
        }
        return 'done';
    });
}

export function checkout(node: unknown): Promise<Outcome> {
    if (!requireTrust('Check Out of a candidate')) return Promise.resolve('refused'); // Restricted Mode
    const t = target(node);
    if (!t) return Promise.resolve('failed');
    const { root, candidate: c } = t;
    return guarded(`checkout of ${c.branch}`, async () => {
        if (await isDirty(root)) {
            void showErrorMessage(
                `KernelPro: not checking out ${c.branch}: the working tree of ${root} has uncommitted changes. Commit or stash them first.`,
            );
            return 'refused';
        }
        await git(root, ['checkout', c.branch]);
        void showInformationMessage(`KernelPro: checked out ${c.branch}.`);
        return 'done';
    });
}

export function apply(store: CandidateStore, node: unknown): Promise<Outcome> {
    if (!requireTrust('Apply of a candidate')) return Promise.resolve('refused'); // Restricted Mode
    const t = target(node);
    if (!t) return Promise.resolve('failed');
    const { root, candidate: c } = t;
    return guarded(`apply of ${c.branch}`, async () => {
        let res: { files: string[] };
        try {
            res = await store.apply(root, c.branch, false);
        } catch (err) {
            if (!(err instanceof CliError) || err.kind !== 'uncommitted') {
                throw err;
            }
            const choice = await showWarningMessage(
                `KernelPro: ${err.message.replace(/; commit or stash them.*$/, '')}. Overwrite with the version from ${c.branch}?`,
                true,
                'Overwrite',
            );
            if (choice !== 'Overwrite') {
                return 'cancelled';
            }
            res = await store.apply(root, c.branch, true);
        }
        void showInformationMessage(`KernelPro: wrote ${res.files.join(', ')} from ${c.branch}.`);
        return 'done';
    });
}

export function remove(store: CandidateStore, node: unknown): Promise<Outcome> {
    if (!requireTrust('Delete of a candidate')) return Promise.resolve('refused'); // Restricted Mode
    const t = target(node);
    if (!t) return Promise.resolve('failed');
    const { root, candidate: c } = t;
    return guarded(`delete of ${c.branch}`, async () => {
        const choice = await showWarningMessage(`KernelPro: delete branch ${c.branch} and its note?`, true, 'Delete');
        if (choice !== 'Delete') {
            return 'cancelled';
        }
        await store.remove(root, c.branch);
        return 'done';
    });
}
