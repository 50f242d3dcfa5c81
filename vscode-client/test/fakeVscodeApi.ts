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
    settings: {} as Record<string, unknown>, // full keys: "kernelpro.arch"; the User settings (inspect's globalValue)
    workspaceSettings: {} as Record<string, unknown>, // .code-workspace values (inspect's workspaceValue)
    folderSettings: {} as Record<string, unknown>, // .vscode/settings.json values (inspect's workspaceFolderValue)
    folders: [] as string[], // workspace folders (fsPaths)
    trusted: true, // vscode.workspace.isTrusted
    grantTrust: new FakeEmitter<void>(),
    extensions: {} as Record<string, any>,
    answers: [] as (string | undefined)[], // replies to showWarningMessage, in order
    infoAnswers: [] as (string | undefined)[], // replies to showInformationMessage, in order
    inputs: [] as (string | undefined)[], // replies to showInputBox, in order
    inputPrompts: [] as { prompt: string; password: boolean }[],
    picks: [] as (string | undefined)[], // replies to showQuickPick, in order
    messages: [] as { kind: string; message: string; items: string[] }[],
    commands: [] as { command: string; args: unknown[] }[],
    missingCommands: [] as string[], // executeCommand rejects these, as an older VS Code would
    watchers: [] as { folder: string; glob: string; create: FakeEmitter<unknown>; change: FakeEmitter<unknown>; del: FakeEmitter<unknown> }[],
    statusItems: [] as any[],
    activeEditor: undefined as any,
};

export function reset(): void {
    state.settings = {};
    state.workspaceSettings = {};
    state.folderSettings = {};
    state.folders = [];
    state.trusted = true;
    state.grantTrust = new FakeEmitter<void>();
    state.extensions = {};
    state.answers = [];
    state.infoAnswers = [];
    state.inputs = [];
    state.inputPrompts = [];
    state.picks = [];
    state.messages = [];
    state.commands = [];
    state.missingCommands = [];
    state.watchers = [];
    state.statusItems = [];
    state.activeEditor = undefined;
    sassState.opened = [];
    sassState.editors = [];
    sassState.highlights = [];
}

// Folder beats workspace beats user, as in VS Code (which also drops workspace values of
// `machine` settings, and of restricted ones in Restricted Mode: the fake does not, so the code
// under test must not rely on it).
export function getConfiguration(section: string) {
    const layer = (values: Record<string, unknown>, full: string) => (full in values ? values[full] : undefined);
    return {
        get<T>(key: string, def?: T): T | undefined {
            const full = `${section}.${key}`;
            for (const values of [state.folderSettings, state.workspaceSettings, state.settings]) {
                if (full in values) return values[full] as T;
            }
            return def;
        },
        inspect<T>(key: string) {
            const full = `${section}.${key}`;
            return {
                key: full,
                globalValue: layer(state.settings, full) as T | undefined,
                workspaceValue: layer(state.workspaceSettings, full) as T | undefined,
                workspaceFolderValue: layer(state.folderSettings, full) as T | undefined,
            };
        },
    };
}

export function onDidChangeConfiguration() {
    return { dispose() {} };
}

export function getWorkspaceFolders() {
    return state.folders.map((f, index) => ({ uri: fileUri(f), name: f.split('/').pop(), index }));
}

export function isWorkspaceTrusted() {
    return state.trusted;
}

export function onDidGrantWorkspaceTrust(listener: () => unknown) {
    return state.grantTrust.event(listener);
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
    if (state.missingCommands.includes(command)) {
        throw new Error(`command '${command}' not found`);
    }
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
    return state.infoAnswers.shift();
}

export async function showQuickPick(items: string[], placeHolder: string) {
    record('pick', placeHolder, items);
    return state.picks.shift();
}

export async function showInputBox(prompt: string, password: boolean) {
    state.inputPrompts.push({ prompt, password });
    return state.inputs.shift();
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
    highlights: [] as { editor: any; spans: [number, number][]; reveal: boolean }[],
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

export function highlightLines(editor: any, _type: unknown, spans: [number, number][], reveal: boolean) {
    sassState.highlights.push({ editor, spans, reveal });
}
