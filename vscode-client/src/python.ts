// Which Python runs the server: the `kernelpro.interpreter` setting, else the
// Python extension's active interpreter (ms-python.python), else `python3`.
import type { Disposable, Uri } from 'vscode';
import { SECTION } from './manifest';
import { stringList } from './settings';
import { getConfiguration, getExtension } from './vscodeapi';

export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const DEFAULT_PYTHON = 'python3';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
    command: string[]; // executable then leading arguments
    source: InterpreterSource;
}

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

export async function resolveInterpreter(
    resource?: Uri,
    log: (line: string) => void = () => undefined,
): Promise<Interpreter> {
    const configured = stringList(getConfiguration(SECTION, resource).get<unknown>('interpreter'));
    if (configured.length > 0) {
        return { command: configured, source: 'setting' };
    }
    try {
        const fromExt = await fromPythonExtension(resource);
        if (fromExt) {
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
