import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { DEFAULT_PYTHON, resolveInterpreter } from '../src/python';

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
