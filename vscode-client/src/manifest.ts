// Reads package.json at run time: the one source of truth for the server's
// identity (`serverInfo`) and for the list of settings and their defaults.
import * as fs from 'fs';
import * as path from 'path';

export interface ServerInfo {
    name: string;
    module: string; // the language server: python -m <module>
    cli: string; // the kernelpro command line: python -m <cli> candidates ...
}

export interface SettingSpec {
    key: string; // without the "kernelpro." prefix, e.g. "llm.baseUrl"
    default: unknown;
}

export interface Manifest {
    name: string;
    version: string;
    serverInfo: ServerInfo;
    settings: SettingSpec[];
}

export const SECTION = 'kernelpro';

export function loadManifest(extensionRoot: string): Manifest {
    const file = path.join(extensionRoot, 'package.json');
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    const info = pkg.serverInfo;
    if (!info || typeof info.name !== 'string' || typeof info.module !== 'string' || typeof info.cli !== 'string') {
        throw new Error(`${file}: "serverInfo" must be {"name": string, "module": string, "cli": string}`);
    }
    const props: Record<string, { default?: unknown }> = pkg.contributes?.configuration?.properties ?? {};
    const settings = Object.entries(props)
        .filter(([k]) => k.startsWith(SECTION + '.'))
        .map(([k, v]) => ({ key: k.slice(SECTION.length + 1), default: v.default }));
    return { name: pkg.name, version: pkg.version, serverInfo: { name: info.name, module: info.module, cli: info.cli }, settings };
}
