// Every Python child starts with -P and PYTHONSAFEPATH=1: a repository's `argparse.py`,
// `json.py` or `kernelpro/` folder is never imported. These tests run real Pythons.
import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { cliCommand, CliError, jsonRunner } from '../src/cli';
import { serverExecutable } from '../src/clientOptions';
import { isTooOld, pythonVersion } from '../src/python';

// test_vscode_client.py passes a Python with KernelPro installed
const PYTHON = process.env.KERNELPRO_PYTHON || 'python3';

let tmp: string;
let evil: string; // a "repository" whose root shadows stdlib and kernelpro modules
let probeDir: string; // on PYTHONPATH: a module that reports how it was started
const MARKERS = ['argparse', 'json', 'kernelpro', 'kp_probe'];

function marker(name: string): string {
    return path.join(tmp, `pwned-${name}`);
}

function planted(): string[] {
    return MARKERS.filter((m) => fs.existsSync(marker(m)));
}

before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kernelpro-safepath-'));
    evil = path.join(tmp, 'repo');
    probeDir = path.join(tmp, 'probe');
    fs.mkdirSync(path.join(evil, 'kernelpro'), { recursive: true });
    fs.mkdirSync(probeDir);
    const touch = (name: string) => `open(${JSON.stringify(marker(name))}, "w").close()\n`;
    fs.writeFileSync(path.join(evil, 'argparse.py'), touch('argparse'));
    fs.writeFileSync(path.join(evil, 'json.py'), touch('json'));
    fs.writeFileSync(path.join(evil, 'kernelpro', '__init__.py'), touch('kernelpro'));
    fs.writeFileSync(path.join(evil, 'kp_probe.py'), touch('kp_probe')); // shadows the probe itself
    // the probe imports argparse and json (what a shadow would catch), then reports its own start
    // and a child Python's sys.path (PYTHONSAFEPATH reaches the server's children)
    fs.writeFileSync(
        path.join(probeDir, 'kp_probe.py'),
        [
            'import argparse, json, os, subprocess, sys',
            'child = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path))"],',
            '                       capture_output=True, text=True, stdin=subprocess.DEVNULL)',
            'print(json.dumps({"orig_argv": sys.orig_argv, "safe_path": sys.flags.safe_path, "env": os.environ.get("PYTHONSAFEPATH"),',
            '                  "cwd": os.getcwd(), "path": sys.path, "child_path": json.loads(child.stdout),',
            '                  "stdin": os.path.realpath("/proc/self/fd/0") if os.path.exists("/proc/self/fd/0") else None}))',
        ].join('\n') + '\n',
    );
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

beforeEach(() => fake.reset());

interface Probe {
    orig_argv: string[];
    safe_path: boolean;
    env: string | null;
    cwd: string;
    path: string[];
    child_path: string[];
    stdin: string | null;
}

function checkProbe(p: Probe, cwd: string): void {
    const m = p.orig_argv.indexOf('-m');
    assert.ok(m > 0 && p.orig_argv.indexOf('-P') === m - 1, `-P right before -m: ${p.orig_argv.join(' ')}`);
    assert.equal(p.safe_path, true);
    assert.equal(p.env, '1');
    assert.equal(fs.realpathSync(p.cwd), fs.realpathSync(cwd));
    assert.ok(!p.path.includes(cwd) && !p.path.includes('') && !p.path.includes(fs.realpathSync(cwd)), p.path.join(':'));
    // a Python the child starts (as the server starts the optimizer) inherits it
    assert.ok(!p.child_path.includes(''), `child's sys.path: ${p.child_path.join(':')}`);
}

function withPythonPath<T>(fn: () => Promise<T>): Promise<T> {
    const old = process.env.PYTHONPATH;
    process.env.PYTHONPATH = probeDir;
    return fn().finally(() => {
        if (old === undefined) delete process.env.PYTHONPATH;
        else process.env.PYTHONPATH = old;
    });
}

test('the candidates command line runs in a hostile repository without importing its files', async () => {
    const run = jsonRunner(async () => [PYTHON], 'kernelpro.profilers.cli');
    // the real command in the real repository folder: it runs (and says this is no git repository)
    await assert.rejects(run(['candidates', 'list', '--repo', evil], evil), (err: unknown) => {
        assert.ok(err instanceof CliError);
        return true;
    });
    assert.deepEqual(planted(), []);
});

test('the command line runner: -P before -m, PYTHONSAFEPATH=1, stdin /dev/null, the repository as cwd', async () => {
    const c = cliCommand(['/v/bin/python', '-X', 'dev'], 'kernelpro.profilers.cli', ['candidates', 'list'], '/repo', { A: '1' });
    assert.equal(c.file, '/v/bin/python');
    assert.deepEqual(c.argv, ['-X', 'dev', '-P', '-m', 'kernelpro.profilers.cli', 'candidates', 'list', '--json']);
    assert.deepEqual(c.options, { cwd: '/repo', env: { A: '1', GIT_TERMINAL_PROMPT: '0', PYTHONSAFEPATH: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });

    const probe = (await withPythonPath(() => jsonRunner(async () => [PYTHON], 'kp_probe')([], evil))) as Probe;
    checkProbe(probe, evil);
    assert.equal(probe.stdin, '/dev/null');
    assert.deepEqual(planted(), []);
});

test('the server starts with -P and PYTHONSAFEPATH=1 (even run from a hostile folder)', async () => {
    const info = { name: 'KernelPro', module: 'kp_probe', cli: 'kernelpro.profilers.cli' };
    const exe = serverExecutable([PYTHON], info, [], evil, { ...process.env, PYTHONPATH: probeDir });
    const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(exe.command, exe.args ?? [], { cwd: exe.options?.cwd, env: exe.options?.env, stdio: ['pipe', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (c) => (text += c));
        child.on('error', reject);
        child.on('close', () => resolve(text));
        child.stdin.end();
    });
    checkProbe(JSON.parse(out) as Probe, evil);
    assert.deepEqual(planted(), []);
});

// A Python older than 3.11, for the message about -P: $KERNELPRO_OLD_PYTHON, else one on this machine.
function oldPython(): string | undefined {
    const candidates = [
        process.env.KERNELPRO_OLD_PYTHON,
        'python3.10',
        'python3.9',
        ...['3.10', '3.9', '3.8'].flatMap((v) => {
            const root = path.join(os.homedir(), '.pyenv', 'versions');
            return fs.existsSync(root) ? fs.readdirSync(root).filter((d) => d.startsWith(v + '.')).map((d) => path.join(root, d, 'bin', `python${v}`)) : [];
        }),
    ];
    for (const c of candidates) {
        if (!c) continue;
        try {
            execFileSync(c, ['-c', 'import sys; assert sys.version_info < (3, 11)'], { stdio: 'ignore' });
            return c;
        } catch {
            // not there, or not old
        }
    }
    return undefined;
}

test('the interpreter\'s version: a real one is new enough', async () => {
    const v = await pythonVersion([PYTHON]);
    assert.ok(v && !isTooOld(v), `${PYTHON}: ${v}`);
    assert.equal(await pythonVersion(['/nonexistent/python']), undefined);
    assert.equal(isTooOld([3, 10]), true);
    assert.equal(isTooOld([3, 11]), false);
    assert.equal(isTooOld([4, 0]), false);
});

const OLD = oldPython();
test('an older Python: the command line says KernelPro needs Python 3.11+', { skip: OLD ? false : 'no Python older than 3.11 here' }, async () => {
    const v = await pythonVersion([OLD!]);
    assert.ok(isTooOld(v), String(v));
    const run = jsonRunner(async () => [OLD!], 'kernelpro.profilers.cli');
    await assert.rejects(run(['candidates', 'list', '--repo', evil], evil), /KernelPro needs Python 3\.11\+ .* -P/);
    assert.deepEqual(planted(), []);
});
