// The one module that touches the `vscode` API. Everything else imports from
// here (types come from `vscode` with `import type`, which is erased), so the
// unit tests can replace this module with a stub and run under plain node.
import * as vscode from 'vscode';

export function getConfiguration(section: string, scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(section, scope);
}

export function onDidChangeConfiguration(
    listener: (e: vscode.ConfigurationChangeEvent) => unknown,
): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration(listener);
}

export function getWorkspaceFolders(): readonly vscode.WorkspaceFolder[] {
    return vscode.workspace.workspaceFolders ?? [];
}

// Workspace trust: false in Restricted Mode. Trust is only ever granted while a window lives
// (taking it back reloads the window), so one event is enough.
export function isWorkspaceTrusted(): boolean {
    return vscode.workspace.isTrusted;
}

export function onDidGrantWorkspaceTrust(listener: () => unknown): vscode.Disposable {
    return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}

export function getExtension(id: string): vscode.Extension<unknown> | undefined {
    return vscode.extensions.getExtension(id);
}

export function createOutputChannel(name: string): vscode.OutputChannel {
    return vscode.window.createOutputChannel(name);
}

export function createStatusBarItem(): vscode.StatusBarItem {
    return vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
}

export function themeColor(id: string): vscode.ThemeColor {
    return new vscode.ThemeColor(id);
}

export function themeIcon(id: string): vscode.ThemeIcon {
    return new vscode.ThemeIcon(id);
}

export function registerCommand(command: string, callback: (...args: any[]) => any): vscode.Disposable {
    return vscode.commands.registerCommand(command, callback);
}

export function executeCommand<T>(command: string, ...args: unknown[]): Thenable<T> {
    return vscode.commands.executeCommand<T>(command, ...args);
}

export function getActiveTextEditor(): vscode.TextEditor | undefined {
    return vscode.window.activeTextEditor;
}

export function showErrorMessage(message: string, ...items: string[]): Thenable<string | undefined> {
    return vscode.window.showErrorMessage(message, ...items);
}

export function showWarningMessage(message: string, modal: boolean, ...items: string[]): Thenable<string | undefined> {
    return vscode.window.showWarningMessage(message, { modal }, ...items);
}

export function showInformationMessage(message: string, ...items: string[]): Thenable<string | undefined> {
    return vscode.window.showInformationMessage(message, ...items);
}

export function showQuickPick(items: string[], placeHolder: string): Thenable<string | undefined> {
    return vscode.window.showQuickPick(items, { placeHolder });
}

// A one-line input; `password` hides what is typed (an API key).
export function showInputBox(prompt: string, password: boolean): Thenable<string | undefined> {
    return vscode.window.showInputBox({ prompt, password, ignoreFocusOut: true });
}

export function fileUri(fsPath: string): vscode.Uri {
    return vscode.Uri.file(fsPath);
}

export function makeUri(scheme: string, path: string, query: string): vscode.Uri {
    return vscode.Uri.from({ scheme, path, query });
}

export function parseUri(value: string): vscode.Uri {
    return vscode.Uri.parse(value);
}

export function createEventEmitter<T>(): vscode.EventEmitter<T> {
    return new vscode.EventEmitter<T>();
}

export function createTreeView<T>(viewId: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T> {
    return vscode.window.createTreeView(viewId, { treeDataProvider: provider, showCollapseAll: true });
}

export function registerTextDocumentContentProvider(
    scheme: string,
    provider: vscode.TextDocumentContentProvider,
): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(scheme, provider);
}

export function createFileSystemWatcher(folder: string, glob: string): vscode.FileSystemWatcher {
    return vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), glob));
}

export async function openFile(fsPath: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(fsPath));
    await vscode.window.showTextDocument(doc);
}

// --- the SASS view: documents beside the source, cursor sync, highlights ---

export async function showDocumentBeside(uri: vscode.Uri, preserveFocus: boolean): Promise<vscode.TextEditor> {
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus, preview: false });
}

export function visibleTextEditors(): readonly vscode.TextEditor[] {
    return vscode.window.visibleTextEditors;
}

export function onDidChangeTextEditorSelection(
    listener: (e: vscode.TextEditorSelectionChangeEvent) => unknown,
): vscode.Disposable {
    return vscode.window.onDidChangeTextEditorSelection(listener);
}

export function onDidChangeDiagnostics(listener: (e: vscode.DiagnosticChangeEvent) => unknown): vscode.Disposable {
    return vscode.languages.onDidChangeDiagnostics(listener);
}

export function createHighlight(): vscode.TextEditorDecorationType {
    return vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Full,
    });
}

// Highlights lines [start, end] (0-based, inclusive) of `editor`; with `reveal`, scrolls the first
// range into view (never in the editor the user is clicking in: that would move the click away).
export function highlightLines(
    editor: vscode.TextEditor,
    type: vscode.TextEditorDecorationType,
    spans: [number, number][],
    reveal: boolean,
): void {
    const ranges = spans.map(([a, b]) => new vscode.Range(a, 0, b, 0));
    editor.setDecorations(type, ranges);
    if (reveal && ranges.length > 0) {
        editor.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
}
