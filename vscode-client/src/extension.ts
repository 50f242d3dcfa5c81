// Entry point: wires the server, status bar, commands and the candidates view.
import type { Disposable, ExtensionContext } from 'vscode';
import * as candidates from './candidates';
import { CliError, jsonRunner, Runner } from './cli';
import { ApiKeys, CLEAR_COMMAND, SECRET_PREFIX, SET_COMMAND } from './llmKey';
import { loadManifest } from './manifest';
import { onPythonInterpreterChanged, resolveInterpreter, WorkspaceInterpreters } from './python';
import { SASS_SCHEME, SassDocument, SassView } from './sass';
import { Server } from './server';
import { affectsKernelpro, userSetting } from './settings';
import { SHOW_LOG_COMMAND, StatusBar } from './status';
import {
    createOutputChannel,
    createTreeView,
    getActiveTextEditor,
    getWorkspaceFolders,
    isWorkspaceTrusted,
    onDidChangeConfiguration,
    onDidGrantWorkspaceTrust,
    registerCommand,
    registerTextDocumentContentProvider,
    showWarningMessage,
} from './vscodeapi';

let server: Server | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
    const manifest = loadManifest(context.extensionPath);
    const output = createOutputChannel(manifest.serverInfo.name);
    const status = new StatusBar();
    const interpreters = new WorkspaceInterpreters(context.globalState, () => {
        output.appendLine('[client] the workspace\'s kernelpro.interpreter was allowed: restarting the server');
        void server?.restart();
    });
    const keys = new ApiKeys(context.secrets, context.globalState);
    server = new Server(manifest, output, status, interpreters, keys);
    const srv = server;

    const folder = () => getWorkspaceFolders()[0]?.uri;
    const log = (l: string) => output.appendLine(`[client] ${l}`);
    const cli = jsonRunner(async () => (await resolveInterpreter(folder(), { log, workspace: interpreters })).command, manifest.serverInfo.cli);
    // never in Restricted Mode: the command line runs git in the repository
    const guardedCli: Runner = (args, cwd) =>
        isWorkspaceTrusted() ? cli(args, cwd) : Promise.reject(new CliError('not in Restricted Mode: trust the folder first', 'restricted'));
    const store = new candidates.CandidateStore(guardedCli);
    const provider = new candidates.CandidatesProvider(store);
    const sass = new SassView(async (uri) => {
        try {
            return (await srv.executeCommand('kernelpro.sass', [uri])) as SassDocument;
        } catch (err) {
            return { ok: false, reason: (err as Error).message };
        }
    });
    const refresh = () => provider.refresh();
    let refWatchers: Disposable[] = [];
    const watchRepos = () =>
        candidates.workspaceRepos().then((roots) => {
            refWatchers.forEach((d) => d.dispose());
            refWatchers = candidates.watchRefs(roots, refresh);
        });
    context.subscriptions.push(
        output,
        status,
        srv,
        provider,
        { dispose: () => refWatchers.forEach((d) => d.dispose()) },
        createTreeView(candidates.VIEW_ID, provider),
        registerTextDocumentContentProvider(candidates.GIT_SCHEME, candidates.gitContentProvider),
        sass,
        registerTextDocumentContentProvider(SASS_SCHEME, sass),
        registerCommand('kernelpro.showSass', async () => {
            const editor = getActiveTextEditor();
            if (!editor || editor.document.uri.scheme !== 'file' || !/\.cu$/.test(editor.document.uri.path)) {
                void showWarningMessage('KernelPro: Show SASS needs a .cu file open in the editor.', false);
                return;
            }
            await sass.show(editor);
        }),
        registerCommand(SHOW_LOG_COMMAND, () => output.show(true)),
        registerCommand('kernelpro.restartServer', () => srv.restart()),
        registerCommand(SET_COMMAND, () => keys.set()),
        registerCommand(CLEAR_COMMAND, () => keys.clear()),
        registerCommand('kernelpro.candidates.refresh', refresh),
        registerCommand('kernelpro.candidates.showDiff', candidates.showDiff),
        registerCommand('kernelpro.candidates.checkout', async (n) => (await candidates.checkout(n)) === 'done' && refresh()),
        registerCommand('kernelpro.candidates.apply', (n) => candidates.apply(store, n)),
        registerCommand('kernelpro.candidates.delete', async (n) => (await candidates.remove(store, n)) === 'done' && refresh()),
        onDidChangeConfiguration((e) => {
            if (affectsKernelpro(e)) {
                output.appendLine('[client] kernelpro settings changed: restarting the server');
                void srv.restart();
            }
        }),
        // a key set or cleared (here or in another window): the server's environment changes
        context.secrets.onDidChange((e) => {
            if (e.key.startsWith(SECRET_PREFIX)) {
                output.appendLine('[client] LLM API key changed: restarting the server');
                void srv.restart();
            }
        }),
        // Restricted Mode -> trusted: the server starts again with `trusted: true` (and the
        // workspace's restricted settings), the Candidates view lists
        onDidGrantWorkspaceTrust(() => {
            output.appendLine('[client] workspace trusted: restarting the server');
            void srv.restart();
            void watchRepos();
            refresh();
        }),
    );
    // kernelpro.optimize / profileGpu / createSpec are registered by vscode-languageclient
    // from the server's executeCommandProvider; clientOptions' middleware fills in
    // [uri, kernel] when they are run from the palette, and refuses Optimize and Profile on
    // GPU in Restricted Mode.

    void watchRepos();
    onPythonInterpreterChanged(() => {
        if ((userSetting<unknown[]>('interpreter', [], folder()) ?? []).length === 0) {
            output.appendLine('[client] Python interpreter changed: restarting the server');
            void srv.restart();
        }
    }).then((d) => d && context.subscriptions.push(d));

    void srv.restart(); // not awaited: activation does not wait for the server
}

export async function deactivate(): Promise<void> {
    await server?.dispose();
    server = undefined;
}
