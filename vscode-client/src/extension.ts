// Entry point: wires the server, status bar, commands and the candidates view.
import type { ExtensionContext } from 'vscode';
import * as candidates from './candidates';
import { loadManifest } from './manifest';
import { jsonRunner } from './cli';
import { onPythonInterpreterChanged, resolveInterpreter } from './python';
import { SASS_SCHEME, SassDocument, SassView } from './sass';
import { Server } from './server';
import { affectsKernelpro } from './settings';
import { SHOW_LOG_COMMAND, StatusBar } from './status';
import {
    createOutputChannel,
    createTreeView,
    getActiveTextEditor,
    getConfiguration,
    getWorkspaceFolders,
    onDidChangeConfiguration,
    registerCommand,
    registerTextDocumentContentProvider,
    showWarningMessage,
} from './vscodeapi';

let server: Server | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
    const manifest = loadManifest(context.extensionPath);
    const output = createOutputChannel(manifest.serverInfo.name);
    const status = new StatusBar();
    server = new Server(manifest, output, status);
    const srv = server;

    const folder = () => getWorkspaceFolders()[0]?.uri;
    const store = new candidates.CandidateStore(
        jsonRunner(async () => (await resolveInterpreter(folder())).command, manifest.serverInfo.cli),
    );
    const provider = new candidates.CandidatesProvider(store);
    const sass = new SassView(async (uri) => {
        try {
            return (await srv.executeCommand('kernelpro.sass', [uri])) as SassDocument;
        } catch (err) {
            return { ok: false, reason: (err as Error).message };
        }
    });
    const refresh = () => provider.refresh();
    context.subscriptions.push(
        output,
        status,
        srv,
        provider,
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
    );
    // kernelpro.optimize / profileGpu / createSpec are registered by vscode-languageclient
    // from the server's executeCommandProvider; clientOptions' middleware fills in
    // [uri, kernel] when they are run from the palette.

    candidates.workspaceRepos().then((roots) => context.subscriptions.push(...candidates.watchRefs(roots, refresh)));
    onPythonInterpreterChanged(() => {
        if ((getConfiguration('kernelpro').get<string[]>('interpreter') ?? []).length === 0) {
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
