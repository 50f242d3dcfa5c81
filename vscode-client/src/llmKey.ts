// The LLM API key: kept in VS Code's SecretStorage, bound to the endpoint the user configured
// (`kernelpro.llm.baseUrl` in the User settings; the setting is `machine`-scoped, so a
// workspace cannot set it). The server gets KERNELPRO_LLM_API_KEY, with
// KERNELPRO_LLM_BASE_URL naming the endpoint it is for, only while the setting still names
// that endpoint; the optimizer sends the key there and nowhere else.
import type { Memory } from './python';
import { userSetting } from './settings';
import { executeCommand, showErrorMessage, showInformationMessage, showInputBox, showQuickPick } from './vscodeapi';

export const KEY_ENV = 'KERNELPRO_LLM_API_KEY';
export const URL_ENV = 'KERNELPRO_LLM_BASE_URL';
export const SECRET_PREFIX = 'kernelpro.llm.apiKey@'; // + the endpoint
export const BOUND_KEY = 'kernelpro.llm.boundUrls'; // globalState: the endpoints that have a key (never the keys)
export const SET_COMMAND = 'kernelpro.setLlmApiKey';
export const CLEAR_COMMAND = 'kernelpro.clearLlmApiKey';

// The part of vscode.SecretStorage used here.
export interface Secrets {
    get(key: string): Thenable<string | undefined>;
    store(key: string, value: string): Thenable<void>;
    delete(key: string): Thenable<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
    return LOOPBACK.has(host.toLowerCase());
}

// One spelling per endpoint: scheme and host lowercased (URL does that), no trailing slash.
export function normalizeUrl(url: string): string | undefined {
    try {
        const u = new URL(url.trim());
        return u.href.replace(/\/+$/, '');
    } catch {
        return undefined;
    }
}

// Why a key must not be sent to `url`; undefined when it may.
export function endpointProblem(url: string): string | undefined {
    let u: URL;
    try {
        u = new URL(url.trim());
    } catch {
        return `"${url}" is not a URL`;
    }
    if (u.username || u.password) {
        return `${u.protocol}//${u.host}: a URL with a user name or password in it`;
    }
    if (u.protocol === 'https:') {
        return undefined;
    }
    if (u.protocol === 'http:') {
        return isLoopback(u.hostname)
            ? undefined
            : `${u.origin} is plain http to another machine: the key would cross the network unencrypted (https, or http only to 127.0.0.1, ::1 or localhost)`;
    }
    return `${u.protocol} is not http(s)`;
}

export function secretName(url: string): string {
    return SECRET_PREFIX + (normalizeUrl(url) ?? url);
}

// The environment the server starts with, given the key bound to the configured endpoint (if
// any): that key and its endpoint; otherwise no KERNELPRO_LLM_API_KEY, unless the user's own
// environment also names KERNELPRO_LLM_BASE_URL (the user's environment is the user's choice).
export function llmEnv(base: NodeJS.ProcessEnv, bound: { url: string; key: string } | undefined): NodeJS.ProcessEnv {
    const env = { ...base };
    if (bound) {
        env[KEY_ENV] = bound.key;
        env[URL_ENV] = bound.url;
    } else if (!env[URL_ENV]) {
        delete env[KEY_ENV];
    }
    return env;
}

export type Outcome = 'stored' | 'cleared' | 'refused' | 'cancelled' | 'none';

export class ApiKeys {
    constructor(
        private readonly secrets: Secrets,
        private readonly memory: Memory,
    ) {}

    // The endpoint in the User settings ('' when none).
    configuredUrl(): string {
        const v = userSetting<unknown>('llm.baseUrl', '');
        return typeof v === 'string' ? v.trim() : '';
    }

    boundUrls(): string[] {
        const v = this.memory.get<unknown>(BOUND_KEY);
        return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    }

    // The key bound to the configured endpoint, when there is one and it may be sent there.
    async bound(): Promise<{ url: string; key: string } | undefined> {
        const url = normalizeUrl(this.configuredUrl());
        if (!url || endpointProblem(url)) {
            return undefined;
        }
        const key = await this.secrets.get(secretName(url));
        return key ? { url, key } : undefined;
    }

    async serverEnv(base: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
        return llmEnv(base, await this.bound());
    }

    // "KernelPro: Set LLM API key"
    async set(): Promise<Outcome> {
        const configured = this.configuredUrl();
        if (!configured) {
            const open = 'Open User Settings';
            if ((await showErrorMessage('KernelPro: set kernelpro.llm.baseUrl in your User settings first: the key is bound to that endpoint.', open)) === open) {
                void executeCommand('workbench.action.openSettings', 'kernelpro.llm.baseUrl');
            }
            return 'refused';
        }
        const problem = endpointProblem(configured);
        const url = normalizeUrl(configured);
        if (problem || !url) {
            void showErrorMessage(`KernelPro: not storing an API key for kernelpro.llm.baseUrl: ${problem ?? 'not a URL'}.`);
            return 'refused';
        }
        const key = (await showInputBox(`API key for ${url} (kept in VS Code's secret storage, sent only to this endpoint)`, true))?.trim();
        if (!key) {
            return 'cancelled';
        }
        await this.secrets.store(secretName(url), key);
        await this.memory.update(BOUND_KEY, [...new Set([...this.boundUrls(), url])]);
        void showInformationMessage(`KernelPro: API key stored for ${url}.`);
        return 'stored';
    }

    // "KernelPro: Clear LLM API key": the configured endpoint's key, else the one picked.
    async clear(): Promise<Outcome> {
        const urls = this.boundUrls();
        if (urls.length === 0) {
            void showInformationMessage('KernelPro: no LLM API key is stored.');
            return 'none';
        }
        const configured = normalizeUrl(this.configuredUrl());
        let chosen: string[];
        if (urls.length === 1) {
            chosen = urls;
        } else if (configured && urls.includes(configured)) {
            chosen = [configured];
        } else {
            const all = 'All of them';
            const pick = await showQuickPick([...urls, all], 'Which endpoint\'s API key to clear?');
            if (!pick) {
                return 'cancelled';
            }
            chosen = pick === all ? urls : [pick];
        }
        for (const url of chosen) {
            await this.secrets.delete(secretName(url));
        }
        await this.memory.update(BOUND_KEY, urls.filter((u) => !chosen.includes(u)));
        void showInformationMessage(`KernelPro: API key cleared for ${chosen.join(', ')}.`);
        return 'cleared';
    }
}
