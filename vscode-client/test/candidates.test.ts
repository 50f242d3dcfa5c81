import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import * as cands from '../src/candidates';
import { jsonRunner } from '../src/cli';
import { Candidate, parseNote } from '../src/git';

// The candidate store is the kernelpro command line: a Python that has KernelPro installed
// (test_vscode_client.py passes its own as KERNELPRO_PYTHON).
const PYTHON = process.env.KERNELPRO_PYTHON || 'python3';
const store = new cands.CandidateStore(jsonRunner(async () => [PYTHON], 'kernelpro.profilers.cli'));

// git in the tests must not see the user's configuration
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.GIT_CONFIG_GLOBAL = '/dev/null';
Object.assign(process.env, {
    GIT_AUTHOR_NAME: 'KernelPro Test',
    GIT_AUTHOR_EMAIL: 'test@kernelpro.invalid',
    GIT_COMMITTER_NAME: 'KernelPro Test',
    GIT_COMMITTER_EMAIL: 'test@kernelpro.invalid',
});

const BASE = '__global__ void saxpy(float a, float* x, float* y, int n) { y[0] = a * x[0] + y[0]; }\n';
const FAST = '__global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) { y[0] = a * x[0] + y[0]; }\n';
const MM = '__global__ void matmul(float* c) { c[0] = 1.0f; }\n';
const MM2 = '__global__ void matmul(float* __restrict__ c) { c[0] = 1.0f; }\n';
const SPEC = 'kernel = "saxpy"\n[sizes]\nsmall = { n = 1024 }\n';

let tmp: string;
let repo: string;
const shas: Record<string, string> = {};

function g(...args: string[]): string {
    return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

function write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
}

// A candidate: a branch off main with one commit, and optionally a note on its tip.
function candidate(branch: string, file: string, text: string, note?: string, extra?: [string, string]): void {
    g('checkout', '-q', '-b', branch, 'main');
    write(file, text);
    if (extra) {
        write(extra[0], extra[1]);
        g('add', extra[0]);
    }
    g('commit', '-q', '-am', `candidate ${branch}`);
    shas[branch] = g('rev-parse', 'HEAD');
    if (note !== undefined) {
        g('notes', '--ref=kernelpro', 'add', '-m', note, shas[branch]);
    }
    g('checkout', '-q', 'main');
}

before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kernelpro-cands-'));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(repo);
    g('init', '-q', '-b', 'main');
    write('kernels/saxpy.cu', BASE);
    write('kernels/matmul.cu', MM);
    write('kernels/saxpy.kernelpro.toml', SPEC);
    g('add', '.');
    g('commit', '-q', '-m', 'initial');
    const good = { kernel: 'saxpy', speedup: 1.83, energy_j: { before: 12.5, after: 9.1 }, file: 'kernels/saxpy.cu', objective: 'time', sizes: [1024] };
    candidate('kernelpro/saxpy/run1-1', 'kernels/saxpy.cu', FAST, JSON.stringify(good));
    candidate('kernelpro/saxpy/run1-2', 'kernels/saxpy.cu', FAST + '// 2\n', '{"kernel": "saxpy", "speedup": '); // malformed
    candidate('kernelpro/saxpy/run1-10', 'kernels/saxpy.cu', FAST + '// 10\n'); // no note
    candidate('kernelpro/matmul/run2-1', 'kernels/matmul.cu', MM2,
        JSON.stringify({ kernel: 'matmul', speedup: 0.97, energy_j: { before: null, after: null }, file: 'kernels/matmul.cu', objective: 'energy' }));
    candidate('kernelpro/evil/run9-1', 'kernels/matmul.cu', MM2 + '// e\n',
        JSON.stringify({ kernel: 'evil', speedup: 2, energy_j: { before: 1, after: 1 }, file: '../outside.cu', objective: 'time' }));
    candidate('kernelpro/saxpy/run3-1', 'kernels/saxpy.cu', FAST + '// spec\n',
        JSON.stringify({ kernel: 'saxpy', speedup: 1.5, file: 'kernels/saxpy.cu', spec_file: 'kernels/saxpy.kernelpro.toml' }),
        ['kernels/saxpy.kernelpro.toml', SPEC.replace('1024', '4096')]);
    g('update-ref', 'refs/kernelpro/snapshots/run2', g('rev-parse', 'main')); // run2 started from uncommitted work
    g('branch', 'feature/unrelated');
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

beforeEach(() => {
    fake.reset();
    g('checkout', '-q', '-f', 'main');
    g('clean', '-qfd');
});

async function byBranch(): Promise<Map<string, Candidate>> {
    return new Map((await store.list(repo)).map((c) => [c.branch, c]));
}

function node(c: Candidate): cands.Node {
    return { kind: 'candidate', root: repo, candidate: c };
}

test('kernelpro candidates list --json on a real repository', async () => {
    const all = await byBranch();
    assert.deepEqual([...all.keys()].sort(), [
        'kernelpro/evil/run9-1', 'kernelpro/matmul/run2-1', 'kernelpro/saxpy/run1-1', 'kernelpro/saxpy/run1-10', 'kernelpro/saxpy/run1-2',
        'kernelpro/saxpy/run3-1',
    ]);
    const good = all.get('kernelpro/saxpy/run1-1')!;
    assert.equal(good.kernel, 'saxpy');
    assert.equal(good.run, 'run1-1');
    assert.equal(good.sha, shas['kernelpro/saxpy/run1-1']);
    assert.equal(good.subject, 'candidate kernelpro/saxpy/run1-1');
    assert.equal(good.note?.speedup, 1.83);
    assert.deepEqual(good.note?.energy_j, { before: 12.5, after: 9.1 });
    assert.equal(good.note?.file, 'kernels/saxpy.cu');
    assert.deepEqual(good.note?.sizes, [1024]); // extra fields kept

    const bad = all.get('kernelpro/saxpy/run1-2')!;
    assert.equal(bad.note, undefined);
    assert.equal(bad.noteError, 'no note'); // the store reads a malformed note as none
    assert.equal(all.get('kernelpro/saxpy/run1-10')!.noteError, 'no note');
});

test('labels: speedup and energy, "no data" for missing or malformed notes', async () => {
    const all = await byBranch();
    assert.equal(cands.describeCandidate(all.get('kernelpro/saxpy/run1-1')!), '1.83× · 12.5 J → 9.1 J (-27%)');
    assert.equal(cands.describeCandidate(all.get('kernelpro/matmul/run2-1')!), '0.97× · energy n/a');
    assert.equal(cands.describeCandidate(all.get('kernelpro/saxpy/run1-2')!), 'no data');
    assert.equal(cands.describeCandidate(all.get('kernelpro/saxpy/run1-10')!), 'no data');
});

test('note validation', () => {
    assert.equal(typeof parseNote('[1]'), 'string');
    assert.match(parseNote('{"kernel":"k","file":"a.cu"}') as string, /speedup/);
    assert.match(parseNote('{"kernel":"k","speedup":1,"file":"a.cu","energy_j":{"before":"x"}}') as string, /energy_j/);
    const ok = parseNote('{"kernel":"k","speedup":1.5,"file":"a.cu"}');
    assert.deepEqual(ok, { kernel: 'k', speedup: 1.5, file: 'a.cu', energy_j: { before: null, after: null }, objective: 'time' });
});

test('the tree groups candidates by kernel, runs in numeric order', async () => {
    const provider = new cands.CandidatesProvider(store, async () => [repo]);
    const kernels = await provider.getChildren();
    assert.deepEqual(kernels.map((k) => provider.getTreeItem(k).label), ['evil', 'matmul', 'saxpy']);
    const saxpy = kernels[2];
    assert.equal(provider.getTreeItem(saxpy).description, '4 candidates');
    const items = (await provider.getChildren(saxpy)).map((n) => provider.getTreeItem(n));
    assert.deepEqual(items.map((i) => i.label), ['run1-1', 'run1-2', 'run1-10', 'run3-1']);
    assert.deepEqual(items.map((i) => i.description), ['1.83× · 12.5 J → 9.1 J (-27%)', 'no data', 'no data', '1.50× · energy n/a']);
    assert.ok(items.every((i) => i.contextValue === 'kernelpro.candidate'));
    assert.equal(items[0].command?.command, 'kernelpro.candidates.showDiff');

    const two = new cands.CandidatesProvider(store, async () => [repo, repo + '-other']);
    const roots = await two.getChildren();
    assert.deepEqual(roots.map((r) => r.kind), ['repo', 'repo']);
    const missing = await two.getChildren(roots[1]);
    assert.equal(missing[0].kind, 'message'); // not a repository: a message, no throw

    let fired = 0;
    provider.onDidChangeTreeData(() => fired++);
    provider.refresh();
    assert.equal(fired, 1);
});

test('ref changes under .git refresh the view (debounced)', async () => {
    let refreshed = 0;
    const subs = cands.watchRefs([repo], () => refreshed++, 10);
    assert.equal(fake.state.watchers.length, 1);
    const w = fake.state.watchers[0];
    assert.equal(w.folder, repo);
    assert.match(w.glob, /\.git\/\{refs\/\*\*/);
    w.create.fire({});
    w.change.fire({});
    w.del.fire({});
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(refreshed, 1);
    subs.forEach((s) => s.dispose());
});

test('show diff: the candidate file at the tip against its parent', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run1-1')!;
    assert.equal(await cands.showDiff(node(c)), 'done');
    const call = fake.state.commands[0];
    assert.equal(call.command, 'vscode.diff');
    const [left, right] = call.args as { scheme: string; query: string }[];
    assert.equal(left.scheme, 'kernelpro-git');
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(left as any), BASE);
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(right as any), FAST);

    // no note: the file comes from the commit itself
    const noNote = (await byBranch()).get('kernelpro/saxpy/run1-10')!;
    assert.equal(await cands.showDiff(node(noNote)), 'done');
    const r2 = fake.state.commands[1].args[1] as any;
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(r2), FAST + '// 10\n');
});

test('show diff of a candidate that changes its launch spec too: both files, as Apply writes them', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run3-1')!;
    assert.equal(await cands.showDiff(node(c)), 'done');
    const call = fake.state.commands[0];
    assert.equal(call.command, 'vscode.changes');
    const [title, resources] = call.args as [string, { scheme: string; path: string; query: string }[][]];
    assert.match(title, /kernelpro\/saxpy\/run3-1/);
    assert.deepEqual(resources.map((r) => r[0].path), [path.join(repo, 'kernels/saxpy.cu'), path.join(repo, 'kernels/saxpy.kernelpro.toml')]);
    const [, left, right] = resources[1];
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(left as any), SPEC);
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(right as any), SPEC.replace('1024', '4096'));
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(resources[0][2] as any), FAST + '// spec\n');

    // a VS Code without the multi-file diff: one diff per file, the kernel's opened last (in front)
    fake.state.missingCommands = ['vscode.changes'];
    assert.equal(await cands.showDiff(node(c)), 'done');
    const diffs = fake.state.commands.slice(1);
    assert.deepEqual(diffs.map((d) => d.command), ['vscode.diff', 'vscode.diff']);
    assert.deepEqual(diffs.map((d) => d.args[2]), [
        'saxpy.kernelpro.toml (kernelpro/saxpy/run3-1 ↔ parent)',
        'saxpy.cu (kernelpro/saxpy/run3-1 ↔ parent)',
    ]);
    assert.equal(await cands.gitContentProvider.provideTextDocumentContent(diffs[0].args[1] as any), SPEC.replace('1024', '4096'));
});

test('checkout refuses on a dirty working tree', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run1-1')!;
    write('kernels/saxpy.cu', BASE + '// my edit\n');
    assert.equal(await cands.checkout(node(c)), 'refused');
    assert.equal(g('symbolic-ref', '--short', 'HEAD'), 'main');
    assert.equal(fake.state.messages[0].kind, 'error');
    assert.match(fake.state.messages[0].message, /uncommitted changes/);
    assert.equal(fs.readFileSync(path.join(repo, 'kernels/saxpy.cu'), 'utf8'), BASE + '// my edit\n');
});

test('checkout of a clean tree (untracked files allowed)', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run1-1')!;
    write('notes.txt', 'scratch');
    assert.equal(await cands.checkout(node(c)), 'done');
    assert.equal(g('symbolic-ref', '--short', 'HEAD'), 'kernelpro/saxpy/run1-1');
});

test('apply refuses to overwrite uncommitted changes unless confirmed', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run1-1')!;
    const file = path.join(repo, 'kernels/saxpy.cu');
    write('kernels/saxpy.cu', BASE + '// mine\n');
    fake.state.answers.push(undefined); // the user closes the dialog
    assert.equal(await cands.apply(store, node(c)), 'cancelled');
    assert.equal(fs.readFileSync(file, 'utf8'), BASE + '// mine\n');
    assert.match(fake.state.messages[0].message, /uncommitted changes/);
    assert.deepEqual(fake.state.messages[0].items, ['Overwrite']);

    fake.state.answers.push('Overwrite');
    assert.equal(await cands.apply(store, node(c)), 'done');
    assert.equal(fs.readFileSync(file, 'utf8'), FAST);
    assert.equal(g('symbolic-ref', '--short', 'HEAD'), 'main'); // branch unchanged
});

test('apply on a clean file writes it without asking', async () => {
    const c = (await byBranch()).get('kernelpro/matmul/run2-1')!;
    assert.equal(await cands.apply(store, node(c)), 'done');
    assert.equal(fs.readFileSync(path.join(repo, 'kernels/matmul.cu'), 'utf8'), MM2);
    assert.ok(!fake.state.messages.some((m) => m.kind === 'warning'));
});

test('apply writes the files the commit changes, never the path a note names', async () => {
    const c = (await byBranch()).get('kernelpro/evil/run9-1')!;
    assert.equal(await cands.apply(store, node(c)), 'done');
    assert.ok(!fs.existsSync(path.join(tmp, 'outside.cu')));
    assert.equal(fs.readFileSync(path.join(repo, 'kernels/matmul.cu'), 'utf8'), MM2 + '// e\n');
});

test('apply carries the launch-spec change with the kernel', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run3-1')!;
    assert.equal(await cands.apply(store, node(c)), 'done');
    assert.equal(fs.readFileSync(path.join(repo, 'kernels/saxpy.cu'), 'utf8'), FAST + '// spec\n');
    assert.equal(fs.readFileSync(path.join(repo, 'kernels/saxpy.kernelpro.toml'), 'utf8'), SPEC.replace('1024', '4096'));
    assert.match(fake.state.messages[0].message, /wrote kernels\/saxpy\.cu, kernels\/saxpy\.kernelpro\.toml/);
});

test('delete asks, then removes the branch and its note', async () => {
    const c = (await byBranch()).get('kernelpro/matmul/run2-1')!;
    fake.state.answers.push(undefined);
    assert.equal(await cands.remove(store, node(c)), 'cancelled');
    assert.ok(g('branch', '--list', 'kernelpro/matmul/run2-1'));

    fake.state.answers.push('Delete');
    assert.equal(await cands.remove(store, node(c)), 'done');
    assert.equal(g('branch', '--list', 'kernelpro/matmul/run2-1'), '');
    assert.ok(!g('notes', '--ref=kernelpro', 'list').includes(c.sha));
    assert.ok(g('notes', '--ref=kernelpro', 'list').includes(shas['kernelpro/saxpy/run1-1'])); // others stay
    // the run's last branch is gone: so is its snapshot ref (the view's own delete left it behind)
    assert.equal(g('for-each-ref', '--format=%(refname)', 'refs/kernelpro/'), '');
});

test('delete of the checked-out candidate is refused with the store\'s reason', async () => {
    const c = (await byBranch()).get('kernelpro/saxpy/run1-10')!;
    g('checkout', '-q', c.branch);
    fake.state.answers.push('Delete');
    assert.equal(await cands.remove(store, node(c)), 'failed');
    assert.match(fake.state.messages.find((m) => m.kind === 'error')!.message, /is checked out/);
    assert.ok(g('branch', '--list', c.branch));
});

test('commands without a candidate say so', async () => {
    assert.equal(await cands.checkout(undefined), 'failed');
    assert.match(fake.state.messages[0].message, /pick a candidate/);
});
