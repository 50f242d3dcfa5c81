// The `kernelpro` settings section as one plain object: what the server gets
// in initializationOptions ({settings: ...}); vscode-languageclient sends the
// same section on didChangeConfiguration and answers workspace/configuration.
import type { ConfigurationChangeEvent, ConfigurationScope } from 'vscode';
import { SECTION, SettingSpec } from './manifest';
import { getConfiguration } from './vscodeapi';

export type KernelproSettings = { [key: string]: unknown };

export interface InitOptions {
    settings: KernelproSettings;
    // vscode.workspace.isTrusted: the server, when false, reads no compile_commands.json and
    // refuses Optimize and Profile on GPU (the static advice still works)
    trusted: boolean;
}

// "llm.baseUrl" -> {llm: {baseUrl: ...}}, the shape of workspace/configuration's answer.
function setPath(target: KernelproSettings, dotted: string, value: unknown): void {
    const parts = dotted.split('.');
    let node = target;
    for (const part of parts.slice(0, -1)) {
        const next = node[part];
        if (typeof next !== 'object' || next === null || Array.isArray(next)) {
            node[part] = {};
        }
        node = node[part] as KernelproSettings;
    }
    node[parts[parts.length - 1]] = value;
}

function clone<T>(value: T): T {
    return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

export function readSettings(specs: SettingSpec[], scope?: ConfigurationScope): KernelproSettings {
    const config = getConfiguration(SECTION, scope);
    const result: KernelproSettings = {};
    for (const spec of specs) {
        const value = config.get<unknown>(spec.key, spec.default);
        setPath(result, spec.key, clone(value === undefined ? spec.default : value));
    }
    return result;
}

export function initializationOptions(specs: SettingSpec[], scope: ConfigurationScope | undefined, trusted: boolean): InitOptions {
    return { settings: readSettings(specs, scope), trusted };
}

// A setting's value in the User settings only (a workspace's never counts), else `def`.
export function userSetting<T>(key: string, def: T, scope?: ConfigurationScope): T {
    const value = getConfiguration(SECTION, scope).inspect<T>(key)?.globalValue;
    return value === undefined ? def : value;
}

export function affectsKernelpro(e: ConfigurationChangeEvent): boolean {
    return e.affectsConfiguration(SECTION);
}

export function stringList(value: unknown): string[] {
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.length > 0) : [];
}
