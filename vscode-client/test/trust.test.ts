// Workspace trust: what the manifest declares, and what the client refuses in Restricted Mode.
import fake = require('./stub');
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import * as cands from '../src/candidates';
import { clientOptions } from '../src/clientOptions';
import { loadManifest } from '../src/manifest';
import { MANAGE_TRUST, MANAGE_TRUST_COMMAND, TRUSTED_CANDIDATE_COMMANDS, TRUSTED_SERVER_COMMANDS } from '../src/trust';

const ROOT = path.resolve(__dirname, '..', '..'); // out/test -> vscode-client
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const props: Record<string, { scope?: string; type?: string; items?: { type?: string } }> = pkg.contributes.configuration.properties;
const settings = loadManifest(ROOT).settings.map((s) => s.key);
const untrusted = pkg.capabilities?.untrustedWorkspaces;

// Settings a workspace may set even in Restricted Mode: none names a program, a flag, a path or
// an endpoint, none makes anything run. A new setting must be put in one list or the other.
const HARMLESS = ['trace.server', 'profileOn', 'typingDelayMs', 'useCache', 'inlayHints', 'optimize.budget', 'optimize.objective'];
// What the issue lists: programs, flags, endpoints, paths (and what they reach: the model, the workers).
const MUST_BE_RESTRICTED = [
    'interpreter', 'server.args', 'nvccPath', 'compileCommands', 'includePaths', 'defines', 'extraFlags',
    'optimizerCommand', 'llm.baseUrl', 'llm.model', 'optimize.workers',
];
// Settings that name a program to run: a workspace never sets them, or only with the user's yes.
const PROGRAMS: Record<string, string> = {
    interpreter: 'machine-overridable',
    'server.args': 'machine',
    nvccPath: 'machine',
    optimizerCommand: 'machine',
    'llm.baseUrl': 'machine', // where the API key goes
};

beforeEach(() => fake.reset());

test('the manifest declares limited support for untrusted workspaces, none for virtual ones', () => {
    assert.equal(untrusted?.supported, 'limited');
    assert.match(untrusted.description, /Restricted Mode/);
    assert.equal(pkg.capabilities.virtualWorkspaces?.supported, false);
    assert.ok(pkg.capabilities.virtualWorkspaces.description);
});

test('restrictedConfigurations: every setting naming a program, flags, an endpoint or paths', () => {
    const restricted: string[] = untrusted.restrictedConfigurations;
    assert.ok(Array.isArray(restricted));
    for (const full of restricted) {
        assert.ok(full.startsWith('kernelpro.') && settings.includes(full.slice('kernelpro.'.length)), `${full} is a setting`);
    }
    const keys = restricted.map((k) => k.slice('kernelpro.'.length));
    for (const k of MUST_BE_RESTRICTED) {
        assert.ok(keys.includes(k), `kernelpro.${k} is restricted`);
    }
    // every setting is either restricted or known harmless; none is both
    for (const k of settings) {
        assert.ok(keys.includes(k) !== HARMLESS.includes(k), `kernelpro.${k}: restricted or harmless, exactly one`);
    }
    // and by shape: string lists (argv, flags, paths) and names that smell of programs or places
    for (const k of settings) {
        const p = props[`kernelpro.${k}`];
        if ((p.type === 'array' && p.items?.type === 'string') || /path|command|url|args|flags|interpreter|defines|workers|model|arch/i.test(k)) {
            assert.ok(keys.includes(k), `kernelpro.${k} looks like a program, flags, a path or an endpoint`);
        }
    }
});

test('settings that name programs or the endpoint are machine-scoped', () => {
    for (const [k, scope] of Object.entries(PROGRAMS)) {
        assert.equal(props[`kernelpro.${k}`].scope, scope, `kernelpro.${k}`);
    }
    // no other setting is machine-scoped by accident, and none that names a program is resource/window
    for (const k of settings) {
        const scope = props[`kernelpro.${k}`].scope;
        if (!(k in PROGRAMS)) {
            assert.ok(scope !== 'machine' && scope !== 'machine-overridable', `kernelpro.${k}: ${scope}`);
        }
    }
});

test('commands that run the workspace\'s code are enabled only in a trusted workspace', () => {
    const gated = pkg.contributes.commands.filter((c: { enablement?: string }) => c.enablement).map((c: { command: string }) => c.command);
    assert.deepEqual(gated.sort(), [...TRUSTED_SERVER_COMMANDS, ...TRUSTED_CANDIDATE_COMMANDS].sort());
    for (const c of pkg.contributes.commands) {
        if (c.enablement) assert.equal(c.enablement, 'isWorkspaceTrusted', c.command);
    }
    assert.deepEqual([...TRUSTED_SERVER_COMMANDS].sort(), ['kernelpro.optimize', 'kernelpro.profileGpu']);
    // the static tools stay: SASS, launch specs, the log, restart
    for (const c of ['kernelpro.showSass', 'kernelpro.createSpec', 'kernelpro.showLog', 'kernelpro.restartServer']) {
        assert.ok(!gated.includes(c), c);
    }
    // the Candidates view says why it is empty, with a way to trust the folder
    const welcome = pkg.contributes.viewsWelcome.find((w: { when?: string }) => w.when === '!isWorkspaceTrusted');
    assert.equal(welcome.view, 'kernelpro.candidates');
    assert.match(welcome.contents, /command:workbench\.trust\.manage/);
});

const lens = ['file:///w/k.cu', 'saxpy'];

test('Restricted Mode: Optimize and Profile on GPU are refused with the reason, the rest goes to the server', async () => {
    fake.state.trusted = false;
    const sent: unknown[][] = [];
    const next = (command: string, args: unknown[]) => {
        sent.push([command, ...args]);
        return 'ok';
    };
    const o = clientOptions({ settings: {}, trusted: false }, {} as any, () => undefined, () => undefined);
    fake.state.answers.push(MANAGE_TRUST); // the user clicks the button on the first warning
    assert.equal(await o.middleware!.executeCommand!('kernelpro.optimize', lens, next), undefined);
    assert.equal(await o.middleware!.executeCommand!('kernelpro.profileGpu', lens, next), undefined);
    assert.deepEqual(sent, []);
    const warnings = fake.state.messages.filter((m) => m.kind === 'warning');
    assert.match(warnings[0].message, /Optimize is off in Restricted Mode: it runs code from this workspace/);
    assert.match(warnings[1].message, /Profile on GPU is off in Restricted Mode/);
    assert.deepEqual(warnings[0].items, [MANAGE_TRUST]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fake.state.commands.map((c) => c.command), [MANAGE_TRUST_COMMAND]);

    // the static side still works
    assert.equal(await o.middleware!.executeCommand!('kernelpro.createSpec', lens, next), 'ok');
    assert.deepEqual(sent, [['kernelpro.createSpec', ...lens]]);

    // trusted: Optimize goes through
    fake.state.trusted = true;
    assert.equal(await o.middleware!.executeCommand!('kernelpro.optimize', lens, next), 'ok');
});

test('Restricted Mode: the Candidates view runs neither git nor the command line', async () => {
    fake.state.trusted = false;
    fake.state.folders = [ROOT]; // a git work tree: listing it would run git
    const ran: string[][] = [];
    const store = new cands.CandidateStore(async (args) => {
        ran.push(args);
        return [];
    });
    const provider = new cands.CandidatesProvider(store, async () => [ROOT]);
    assert.deepEqual(await provider.getChildren(), []); // empty: the welcome text for Restricted Mode shows
    assert.deepEqual(await cands.workspaceRepos(), []);
    const c = { branch: 'kernelpro/k/r-1', kernel: 'k', run: 'r-1', sha: '0'.repeat(40), subject: '' };
    const node = { kind: 'candidate', root: ROOT, candidate: c };
    assert.equal(await cands.apply(store, node), 'refused');
    assert.equal(await cands.remove(store, node), 'refused');
    assert.equal(await cands.checkout(node), 'refused');
    assert.equal(await cands.showDiff(node), 'refused');
    assert.deepEqual(ran, []);
    assert.deepEqual(fake.state.commands, []); // no vscode.diff either
    const said = fake.state.messages.map((m) => m.message);
    assert.equal(said.length, 4);
    assert.ok(said.every((m) => /is off in Restricted Mode/.test(m)), said.join('\n'));

    // a kernelpro-git: document (a link anywhere) runs no git either
    const doc = await cands.gitContentProvider.provideTextDocumentContent(cands.gitUri(ROOT, 'HEAD', 'package.json'));
    assert.match(doc, /no git in Restricted Mode/);

    // once trusted, the same provider lists again
    fake.state.trusted = true;
    await provider.getChildren();
    assert.equal(ran.length, 1);
});
