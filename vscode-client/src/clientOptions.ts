// How the client starts and talks to the server: the pure part, testable
// without VS Code (only types come from vscode-languageclient).
import type { OutputChannel } from 'vscode';
import type { Executable, LanguageClientOptions } from 'vscode-languageclient/node';
import { isSpecFile, kernelAt, kernelFromSpec } from './kernels';
import { SECTION, ServerInfo } from './manifest';
import { pythonArgv, safeEnv } from './python';
import { InitOptions } from './settings';
import { commandTitle, requireTrust, TRUSTED_SERVER_COMMANDS } from './trust';

// Commands the server registers (workspace/executeCommand), each taking [uri, kernelName].
export const SERVER_COMMANDS = ['kernelpro.optimize', 'kernelpro.profileGpu', 'kernelpro.createSpec'] as const;

export const DOCUMENT_SELECTOR = [
    { scheme: 'file', language: 'cuda-cpp' },
    { scheme: 'file', pattern: '**/*.cu' },
    { scheme: 'file', pattern: '**/*.cuh' },
    { scheme: 'file', pattern: '**/*.kernelpro.toml' },
];

// `<python...> -P -m <module> <args>` over stdio, PYTHONSAFEPATH=1 in its environment (so
// the optimizer and the other Python children it starts inherit it), in `cwd` (the home folder:
// the server needs no working directory; workspace folders come through LSP).
export function serverExecutable(
    interpreter: string[],
    info: ServerInfo,
    serverArgs: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
): Executable {
    if (interpreter.length === 0) {
        throw new Error('KernelPro: no Python interpreter to start the server with');
    }
    const { file, argv } = pythonArgv(interpreter, info.module, serverArgs);
    return {
        command: file,
        args: argv,
        // transport omitted: stdio (stdin is the LSP channel)
        options: { cwd, env: safeEnv(env) },
    };
}

// What a palette invocation of a server command lacks: the editor's document and cursor.
export interface EditorContext {
    uri: string;
    fsPath: string;
    text: string;
    offset: number;
}

// Arguments for a server command: kept when the caller gave some (code lenses
// do), else [uri, kernel under the cursor]; undefined when there is no editor.
export function commandArguments(args: unknown[], editor: EditorContext | undefined): unknown[] | undefined {
    if (args.length > 0) {
        return args;
    }
    if (!editor) {
        return undefined;
    }
    const kernel = isSpecFile(editor.fsPath) ? kernelFromSpec(editor.text) : kernelAt(editor.text, editor.offset);
    return kernel === undefined ? [editor.uri] : [editor.uri, kernel];
}

// `refuse(command)` says why a command that runs the workspace's code cannot run here (Restricted
// Mode) and returns true; by default it asks VS Code whether the workspace is trusted.
export function clientOptions(
    initOptions: InitOptions,
    output: OutputChannel,
    activeEditor: () => EditorContext | undefined,
    warn: (message: string) => void,
    refuse: (command: string) => boolean = (command) =>
        TRUSTED_SERVER_COMMANDS.includes(command) && !requireTrust(commandTitle(command)),
): LanguageClientOptions {
    return {
        documentSelector: DOCUMENT_SELECTOR,
        synchronize: { configurationSection: SECTION },
        initializationOptions: initOptions,
        outputChannel: output,
        traceOutputChannel: output,
        middleware: {
            executeCommand: (command, args, next) => {
                if (refuse(command)) {
                    return undefined;
                }
                const full = commandArguments(args, activeEditor());
                if (full === undefined) {
                    warn(`${command}: open a CUDA file (or launch spec) and put the cursor in a kernel first.`);
                    return undefined;
                }
                return next(command, full);
            },
        },
    };
}
