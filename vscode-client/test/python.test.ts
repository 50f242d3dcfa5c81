import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { ALLOW, DEFAULT_PYTHON, KEEP_MINE, resolveInterpreter, WorkspaceInterpreters } from '../src/python';

function pythonExtension(opts: { exe?: string; execCommand?: string[]; active?: boolean; throws?: boolean }) {
    const ext = {
        isActive: opts.active ?? true,
        activated: false,
        async activate() {
            ext.activated = true;
            ext.isActive = true;
        },
        exports: {
            environment: {
                getActiveEnvironmentPath: () => ({ id: 'env', path: opts.exe ?? '' }),
                resolveEnvironment: async () => {
                    if (opts.throws) throw new Error('boom');
                    return opts.exe ? { executable: { uri: { fsPath: opts.exe } } } : undefined;
                },
            },
            settings: { getExecutionDetails: () => ({ execCommand: opts.execCommand }) },
        },
    };
    return ext;
}

beforeEach(() => fake.reset());

test('the kernelpro.interpreter setting wins over the Python extension', async () => {
    fake.state.settings['kernelpro.interpreter'] = ['/opt/venv/bin/python', '-X', 'dev'];
    fake.state.extensions['ms-python.python'] = pythonExtension({ exe: '/usr/bin/python3.12' });
    const r = await resolveInterpreter();
    assert.deepEqual(r, { command: ['/opt/venv/bin/python', '-X', 'dev'], source: 'setting' });
});

test('an empty setting falls through to the Python extension, activating it', async () => {
    fake.state.settings['kernelpro.interpreter'] = [];
    const ext = pythonExtension({ exe: '/home/u/.venv/bin/python', active: false });
    fake.state.extensions['ms-python.python'] = ext;
    const r = await resolveInterpreter();
    assert.deepEqual(r, { command: ['/home/u/.venv/bin/python'], source: 'python-extension' });
    assert.equal(ext.activated, true);
});

test('a setting of blank or non-string entries counts as empty', async () => {
    fake.state.settings['kernelpro.interpreter'] = ['', 3];
    fake.state.extensions['ms-python.python'] = pythonExtension({ exe: '/x/python' });
    assert.equal((await resolveInterpreter()).source, 'python-extension');
});

test("the extension's execCommand is used when the environment API has no executable", async () => {
    fake.state.extensions['ms-python.python'] = pythonExtension({ execCommand: ['conda', 'run', 'python'] });
    assert.deepEqual(await resolveInterpreter(), { command: ['conda', 'run', 'python'], source: 'python-extension' });
});

test('python3 when the Python extension is not installed', async () => {
    assert.deepEqual(await resolveInterpreter(), { command: [DEFAULT_PYTHON], source: 'default' });
    assert.equal(DEFAULT_PYTHON, 'python3');
});

test('python3 when the Python extension knows no interpreter', async () => {
    fake.state.extensions['ms-python.python'] = pythonExtension({});
    assert.deepEqual(await resolveInterpreter(), { command: ['python3'], source: 'default' });
});

test('python3, and a log line, when the Python extension fails', async () => {
    fake.state.extensions['ms-python.python'] = pythonExtension({ exe: '/x', throws: true });
    const log: string[] = [];
    assert.deepEqual(await resolveInterpreter(undefined, (l) => log.push(l)), { command: ['python3'], source: 'default' });
    assert.match(log.join('\n'), /boom/);
});

// --- a workspace's own kernelpro.interpreter ---

function memory(initial: Record<string, unknown> = {}) {
    const data = new Map(Object.entries(initial));
    return {
        data,
        get: <T>(key: string) => data.get(key) as T | undefined,
        update: async (key: string, value: unknown) => void data.set(key, value),
    };
}

const WS = '/work/cloned';
const FOLDER = fake.fileUri(WS);
const MINE = ['/home/u/venv/bin/python'];
const THEIRS = [`${WS}/tools/python`];

function setup(trusted = true) {
    fake.state.trusted = trusted;
    fake.state.folders = [WS];
    fake.state.settings['kernelpro.interpreter'] = MINE;
    fake.state.folderSettings['kernelpro.interpreter'] = THEIRS;
}

const tick = () => new Promise((r) => setImmediate(r));

test('a workspace interpreter other than the user\'s: asked once, the user\'s runs until "Allow"', async () => {
    setup();
    let restarts = 0;
    const mem = memory();
    const ws = new WorkspaceInterpreters(mem, () => restarts++);
    fake.state.infoAnswers.push('Allow');
    const first = await resolveInterpreter(FOLDER as any, { workspace: ws });
    assert.deepEqual(first, { command: MINE, source: 'setting' }); // not waiting for the answer
    await tick();
    const asked = fake.state.messages.filter((m) => m.kind === 'info');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, `This workspace sets kernelpro.interpreter to ${THEIRS.join(' ')}. Use it?`);
    assert.deepEqual(asked[0].items, [ALLOW, KEEP_MINE]);
    assert.equal(restarts, 1); // allowed: the server restarts with it
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws }), { command: THEIRS, source: 'workspace' });
    // remembered across windows (globalState), per folder and value
    const again = new WorkspaceInterpreters(mem);
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: again }), { command: THEIRS, source: 'workspace' });
    assert.equal(fake.state.messages.length, 1);
    // the workspace changes its value: asked again
    fake.state.folderSettings['kernelpro.interpreter'] = [`${WS}/other/python`];
    assert.equal((await resolveInterpreter(FOLDER as any, { workspace: again })).source, 'setting');
    await tick();
    assert.equal(fake.state.messages.length, 2);
    // another folder with the same value: asked again
    assert.equal(again.choice('file:///elsewhere', THEIRS), undefined);
});

test('"Keep mine" is remembered; a dismissed question is asked again in a new window, not in this one', async () => {
    setup();
    const mem = memory();
    const ws = new WorkspaceInterpreters(mem);
    fake.state.infoAnswers.push(KEEP_MINE);
    await resolveInterpreter(FOLDER as any, { workspace: ws });
    await tick();
    assert.equal(ws.choice(FOLDER.toString(), THEIRS), 'deny');
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: new WorkspaceInterpreters(mem) }), { command: MINE, source: 'setting' });
    assert.equal(fake.state.messages.length, 1);

    const mem2 = memory();
    const ws2 = new WorkspaceInterpreters(mem2);
    fake.state.infoAnswers.push(undefined); // dismissed
    await resolveInterpreter(FOLDER as any, { workspace: ws2 });
    await resolveInterpreter(FOLDER as any, { workspace: ws2 });
    await tick();
    assert.equal(fake.state.messages.length, 2); // once in this window
    assert.equal(ws2.choice(FOLDER.toString(), THEIRS), undefined);
    await resolveInterpreter(FOLDER as any, { workspace: new WorkspaceInterpreters(mem2) });
    await tick();
    assert.equal(fake.state.messages.length, 3); // and again in the next
});

test('without a user interpreter, the Python extension or python3 runs while the question is open', async () => {
    setup();
    delete fake.state.settings['kernelpro.interpreter'];
    const ws = new WorkspaceInterpreters(memory());
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws }), { command: ['python3'], source: 'default' });
    fake.state.extensions['ms-python.python'] = pythonExtension({ exe: '/usr/bin/python3.12' });
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws }), { command: ['/usr/bin/python3.12'], source: 'python-extension' });
    // nothing to ask about when the workspace says what the user says
    fake.reset();
    setup();
    fake.state.settings['kernelpro.interpreter'] = THEIRS;
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: new WorkspaceInterpreters(memory()) }), { command: THEIRS, source: 'setting' });
    await tick();
    assert.equal(fake.state.messages.length, 0);
    // no one to ask: the workspace's value is never used
    fake.state.settings['kernelpro.interpreter'] = MINE;
    assert.deepEqual(await resolveInterpreter(FOLDER as any), { command: MINE, source: 'setting' });
});

test('Restricted Mode: never the workspace\'s interpreter, never asked, not even when allowed before', async () => {
    setup(false);
    const mem = memory();
    const ws = new WorkspaceInterpreters(mem);
    await ws.remember(FOLDER.toString(), THEIRS, 'allow');
    const log: string[] = [];
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws, log: (l) => log.push(l) }), { command: MINE, source: 'setting' });
    await tick();
    assert.equal(fake.state.messages.length, 0);
    assert.match(log.join('\n'), /Restricted Mode: not using the workspace's kernelpro.interpreter/);
    // nor a checked-in virtual environment that the Python extension picked
    delete fake.state.settings['kernelpro.interpreter'];
    fake.state.extensions['ms-python.python'] = pythonExtension({ exe: `${WS}/.venv/bin/python` });
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws }), { command: ['python3'], source: 'default' });
    fake.state.trusted = true; // trusted: the user's Python extension's choice stands
    delete fake.state.folderSettings['kernelpro.interpreter'];
    assert.deepEqual(await resolveInterpreter(FOLDER as any, { workspace: ws }), { command: [`${WS}/.venv/bin/python`], source: 'python-extension' });
});
