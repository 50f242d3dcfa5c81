// Which Python runs the server and the kernelpro command line, and how it is started.
//
// Which: the user's `kernelpro.interpreter` (User settings), else the Python extension's
// active interpreter (ms-python.python), else `python3`. A workspace may set its own
// (`machine-overridable`), but it is used only in a trusted workspace and only once the user
// said "Allow" for that folder and that value (remembered in globalState); until then the
// user's choice runs. In Restricted Mode VS Code drops the workspace's value itself, and an
// interpreter the Python extension found inside a workspace folder (a checked-in `.venv`) is
// not used either.
//
// How: `<python...> -P -m <module>` with PYTHONSAFEPATH=1 in the environment, so neither the
// child nor its own Python children put the working directory on sys.path (an `argparse.py`
// or a `kernelpro/` folder in the repository is never imported). -P needs Python 3.11.
import { execFile } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import type { Disposable, Uri } from 'vscode';
import { SECTION } from './manifest';
import { stringList } from './settings';
import { getConfiguration, getExtension, getWorkspaceFolders, isWorkspaceTrusted, showInformationMessage } from './vscodeapi';

export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const DEFAULT_PYTHON = 'python3';

// -P: "don't prepend a potentially unsafe path to sys.path" (Python 3.11+).
export const SAFE_PATH_FLAG = '-P';
export const MIN_PYTHON: [number, number] = [3, 11];

export type InterpreterSource = 'setting' | 'workspace' | 'python-extension' | 'default';

export interface Interpreter {
    command: string[]; // executable then leading arguments
    source: InterpreterSource;
}

// --- starting Python safely ---

// argv for `<python...> -P -m <module> <args>`: -P right after the interpreter command.
export function pythonArgv(command: string[], module: string, args: string[]): { file: string; argv: string[] } {
    if (command.length === 0) {
        throw new Error('KernelPro: no Python interpreter to start');
    }
    return { file: command[0], argv: [...command.slice(1), SAFE_PATH_FLAG, '-m', module, ...args] };
}

// The environment of a Python child: PYTHONSAFEPATH=1, which its own Python children inherit.
export function safeEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...base, PYTHONSAFEPATH: '1' };
}

export function tooOldMessage(command: string[], version?: [number, number]): string {
    const which = version ? `${command.join(' ')} is Python ${version[0]}.${version[1]}` : `${command.join(' ')} does not know -P`;
    return (
        `KernelPro needs Python ${MIN_PYTHON[0]}.${MIN_PYTHON[1]}+ (it starts Python with -P, so that the working directory is never ` +
        `on sys.path): ${which}. Set "kernelpro.interpreter" in your User settings to a newer Python with KernelPro installed.`
    );
}

export function isTooOld(version: [number, number] | undefined): boolean {
    return version !== undefined && (version[0] < MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] < MIN_PYTHON[1]));
}

// What Python 3.10 and older print for -P.
export function saysUnknownSafePath(stderr: string): boolean {
    return /Unknown option:? -P\b|unknown option -P\b/i.test(stderr);
}

// The interpreter's (major, minor), or undefined when it does not run. `-I` (isolated: no
// working directory, no PYTHON* variables) works on every Python 3; run from the home folder.
export function pythonVersion(command: string[], timeoutMs = 15000): Promise<[number, number] | undefined> {
    return new Promise((resolve) => {
        if (command.length === 0) {
            resolve(undefined);
            return;
        }
        const child = execFile(
            command[0],
            [...command.slice(1), '-I', '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'],
            { cwd: os.homedir(), timeout: timeoutMs, env: safeEnv(process.env) },
            (err, stdout) => {
                const m = /^(\d+)\.(\d+)\s*$/.exec(String(stdout));
                resolve(!err && m ? [Number(m[1]), Number(m[2])] : undefined);
            },
        );
        child.stdin?.end(); // nothing to read
    });
}

// --- a workspace's own interpreter: asked once per folder and value ---

export type Choice = 'allow' | 'deny';
export const CHOICES_KEY = 'kernelpro.workspaceInterpreters';
export const ALLOW = 'Allow';
export const KEEP_MINE = 'Keep mine';

// The part of vscode.Memento (context.globalState) used here.
export interface Memory {
    get<T>(key: string): T | undefined;
    update(key: string, value: unknown): Thenable<void>;
}

export function askMessage(value: string[]): string {
    return `This workspace sets kernelpro.interpreter to ${value.join(' ')}. Use it?`;
}

export class WorkspaceInterpreters {
    private readonly asking = new Set<string>(); // prompts shown in this window (answered or not)

    // `allowed` runs after the user allows a value (the server restarts with it).
    constructor(
        private readonly memory: Memory,
        private readonly allowed: () => void = () => undefined,
    ) {}

    private key(folder: string, value: string[]): string {
        return `${folder}\n${JSON.stringify(value)}`;
    }

    choice(folder: string, value: string[]): Choice | undefined {
        const all = this.memory.get<Record<string, Choice>>(CHOICES_KEY) ?? {};
        const c = all[this.key(folder, value)];
        return c === 'allow' || c === 'deny' ? c : undefined;
    }

    async remember(folder: string, value: string[], choice: Choice): Promise<void> {
        const all = { ...(this.memory.get<Record<string, Choice>>(CHOICES_KEY) ?? {}) };
        all[this.key(folder, value)] = choice;
        await this.memory.update(CHOICES_KEY, all);
    }

    // Shows the question once per window (a non-modal notification: nothing waits for it);
    // resolves with the answer, undefined when dismissed or already asked.
    async ask(folder: string, value: string[]): Promise<Choice | undefined> {
        const key = this.key(folder, value);
        if (this.asking.has(key)) {
            return undefined;
        }
        this.asking.add(key);
        const answer = await showInformationMessage(askMessage(value), ALLOW, KEEP_MINE);
        const choice: Choice | undefined = answer === ALLOW ? 'allow' : answer === KEEP_MINE ? 'deny' : undefined;
        if (choice) {
            await this.remember(folder, value, choice);
            if (choice === 'allow') {
                this.allowed();
            }
        }
        return choice;
    }
}

// --- the Python extension ---

// The part of the Python extension's exported API that we use.
interface PythonExtensionApi {
    environment?: {
        getActiveEnvironmentPath(resource?: Uri): { id: string; path: string };
        resolveEnvironment(env: { id: string; path: string } | string): Promise<
            { executable: { uri: Uri | undefined } } | undefined
        >;
        onDidChangeActiveEnvironmentPath?: (listener: () => void) => Disposable;
    };
    settings?: {
        getExecutionDetails?(resource?: Uri): { execCommand: string[] | undefined };
    };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
    const ext = getExtension(PYTHON_EXTENSION_ID);
    if (!ext) {
        return undefined;
    }
    if (!ext.isActive) {
        await ext.activate();
    }
    return ext.exports as PythonExtensionApi;
}

async function fromPythonExtension(resource?: Uri): Promise<string[] | undefined> {
    const api = await pythonExtensionApi();
    if (!api) {
        return undefined;
    }
    if (api.environment) {
        const env = await api.environment.resolveEnvironment(api.environment.getActiveEnvironmentPath(resource));
        const exe = env?.executable.uri?.fsPath;
        if (exe) {
            return [exe];
        }
    }
    const exec = stringList(api.settings?.getExecutionDetails?.(resource)?.execCommand);
    return exec.length > 0 ? exec : undefined;
}

function insideWorkspace(file: string): boolean {
    if (!path.isAbsolute(file)) {
        return false; // a name found on PATH
    }
    const abs = path.resolve(file);
    return getWorkspaceFolders().some((f) => {
        if (f.uri.scheme !== 'file') return false;
        const rel = path.relative(f.uri.fsPath, abs);
        return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
}

function sameList(a: string[], b: string[]): boolean {
    return a.length === b.length && a.every((x, i) => x === b[i]);
}

export interface ResolveOptions {
    log?: (line: string) => void;
    // asks about (and remembers) a workspace's own interpreter; without it a workspace's value is never used
    workspace?: WorkspaceInterpreters;
}

export async function resolveInterpreter(resource?: Uri, options: ResolveOptions | ((line: string) => void) = {}): Promise<Interpreter> {
    const opts = typeof options === 'function' ? { log: options } : options;
    const log = opts.log ?? (() => undefined);
    const trusted = isWorkspaceTrusted();
    const config = getConfiguration(SECTION, resource);
    const info = config.inspect<unknown>('interpreter');
    const user = stringList(info?.globalValue);
    const folderValue = stringList(info?.workspaceFolderValue);
    const own = folderValue.length > 0 ? folderValue : stringList(info?.workspaceValue);
    if (own.length > 0 && !sameList(own, user)) {
        const folder = resource?.toString() ?? '(no folder)';
        if (!trusted) {
            log(`Restricted Mode: not using the workspace's kernelpro.interpreter (${own.join(' ')})`);
        } else {
            const choice = opts.workspace?.choice(folder, own);
            if (choice === 'allow') {
                return { command: own, source: 'workspace' };
            }
            if (choice === 'deny') {
                log(`not using the workspace's kernelpro.interpreter (${own.join(' ')}): you chose to keep yours`);
            } else {
                log(`the workspace sets kernelpro.interpreter to ${own.join(' ')}: asking before using it; yours runs meanwhile`);
                void opts.workspace?.ask(folder, own);
            }
        }
    }
    if (user.length > 0) {
        return { command: user, source: 'setting' };
    }
    try {
        const fromExt = await fromPythonExtension(resource);
        if (fromExt && !trusted && insideWorkspace(fromExt[0])) {
            log(`Restricted Mode: not using the Python extension's interpreter ${fromExt[0]}: it lies inside the workspace`);
        } else if (fromExt) {
            return { command: fromExt, source: 'python-extension' };
        }
    } catch (err) {
        log(`Could not ask the Python extension for its interpreter: ${err}`);
    }
    return { command: [DEFAULT_PYTHON], source: 'default' };
}

// Calls `listener` when the Python extension's active interpreter changes.
export async function onPythonInterpreterChanged(listener: () => void): Promise<Disposable | undefined> {
    try {
        const api = await pythonExtensionApi();
        return api?.environment?.onDidChangeActiveEnvironmentPath?.(listener);
    } catch {
        return undefined;
    }
}
