// Starts, stops and restarts the language client.
import * as os from 'os';
import type { Disposable, OutputChannel } from 'vscode';
import { ExecuteCommandRequest, LanguageClient, State } from 'vscode-languageclient/node';
import { clientOptions, EditorContext, serverExecutable } from './clientOptions';
import { ApiKeys, llmEnv } from './llmKey';
import { Manifest, SECTION } from './manifest';
import { isTooOld, pythonVersion, resolveInterpreter, tooOldMessage, WorkspaceInterpreters } from './python';
import { initializationOptions, stringList, userSetting } from './settings';
import { bindStatus, StatusBar } from './status';
import { getActiveTextEditor, getWorkspaceFolders, isWorkspaceTrusted, showErrorMessage, showWarningMessage } from './vscodeapi';

function activeEditor(): EditorContext | undefined {
    const editor = getActiveTextEditor();
    if (!editor) {
        return undefined;
    }
    const doc = editor.document;
    return { uri: doc.uri.toString(), fsPath: doc.uri.fsPath, text: doc.getText(), offset: doc.offsetAt(editor.selection.active) };
}

export class Server implements Disposable {
    private client: LanguageClient | undefined;
    private listeners: Disposable[] = [];
    private queue: Promise<void> = Promise.resolve();

    constructor(
        private readonly manifest: Manifest,
        private readonly output: OutputChannel,
        private readonly status: StatusBar,
        private readonly interpreters?: WorkspaceInterpreters,
        private readonly keys?: ApiKeys,
    ) {}

    get languageClient(): LanguageClient | undefined {
        return this.client;
    }

    // A server command (workspace/executeCommand) sent directly, with its arguments as given.
    async executeCommand(command: string, args: unknown[]): Promise<unknown> {
        if (!this.client || !this.client.isRunning()) {
            throw new Error('the KernelPro server is not running (see the log)');
        }
        return this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    }

    // Restarts are serialised so quick setting changes do not race.
    restart(): Promise<void> {
        this.queue = this.queue.then(() => this.doRestart()).catch((err) => this.output.appendLine(`[client] ${err}`));
        return this.queue;
    }

    private async stopClient(): Promise<void> {
        const old = this.client;
        this.client = undefined;
        this.listeners.forEach((d) => d.dispose());
        this.listeners = [];
        if (old) {
            this.output.appendLine('[client] stopping the server');
            try {
                await old.stop();
            } catch (err) {
                this.output.appendLine(`[client] stop failed: ${err}`);
            }
        }
    }

    private async doRestart(): Promise<void> {
        await this.stopClient();
        const log = (l: string) => this.output.appendLine(`[client] ${l}`);
        const folder = getWorkspaceFolders()[0];
        const trusted = isWorkspaceTrusted();
        const interpreter = await resolveInterpreter(folder?.uri, { log, workspace: this.interpreters });
        // machine-scoped: only the User settings count, whatever a workspace file says
        const args = stringList(userSetting<unknown>('server.args', [], folder?.uri));
        const cwd = os.homedir();
        const env = this.keys ? await this.keys.serverEnv(process.env) : llmEnv(process.env, undefined);
        const exe = serverExecutable(interpreter.command, this.manifest.serverInfo, args, cwd, env);
        log(`interpreter (${interpreter.source}): ${interpreter.command.join(' ')}`);
        log(`starting: ${[exe.command, ...(exe.args ?? [])].join(' ')} (cwd ${cwd}, PYTHONSAFEPATH=1)`);
        log(
            trusted
                ? 'workspace trusted'
                : 'Restricted Mode: static advice only (no compile_commands.json, no Optimize, no Profile on GPU, no candidates)',
        );
        if (env.KERNELPRO_LLM_API_KEY) {
            log(`LLM API key: for ${env.KERNELPRO_LLM_BASE_URL}`);
        }

        const options = clientOptions(
            initializationOptions(this.manifest.settings, folder?.uri, trusted),
            this.output,
            activeEditor,
            (m) => void showWarningMessage(m, false),
        );
        const client = new LanguageClient(SECTION, this.manifest.serverInfo.name, { run: exe, debug: exe }, options);
        this.client = client;
        this.listeners.push(
            client.onDidChangeState((e) => {
                if (e.newState === State.Running) {
                    this.status.update({ state: 'idle' });
                } else if (e.newState === State.Stopped && this.client === client) {
                    this.status.update({ state: 'error', message: 'server stopped; see the log' });
                }
            }),
            bindStatus(client, this.status),
        );
        try {
            await client.start();
        } catch (err) {
            // -P (Python 3.11+) is the usual reason an older Python exits at once: say so
            const version = await pythonVersion(interpreter.command);
            if (isTooOld(version)) {
                const message = tooOldMessage(interpreter.command, version);
                this.status.update({ state: 'error', message });
                log(message);
                void showErrorMessage(message);
                return;
            }
            this.status.update({ state: 'error', message: `server failed to start: ${err}` });
            this.output.appendLine(
                `[client] the server did not start: ${err}\n` +
                    `[client] is KernelPro installed for ${interpreter.command.join(' ')}? ` +
                    `(${interpreter.command.join(' ')} -m pip install kernelpro) or set "kernelpro.interpreter".`,
            );
        }
    }

    async dispose(): Promise<void> {
        await this.queue;
        await this.stopClient();
    }
}
