import fake = require('./stub');
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import { clientOptions, commandArguments, DOCUMENT_SELECTOR, serverExecutable } from '../src/clientOptions';
import { findKernels, kernelAt, kernelFromSpec } from '../src/kernels';
import { loadManifest } from '../src/manifest';
import { affectsKernelpro, initializationOptions } from '../src/settings';

const ROOT = path.resolve(__dirname, '..', '..'); // out/test -> vscode-client
const manifest = loadManifest(ROOT);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

beforeEach(() => fake.reset());

test('package.json is the source of the server identity', () => {
    assert.deepEqual(manifest.serverInfo, { name: 'KernelPro', module: 'kernelpro.lsp_server', cli: 'kernelpro.profilers.cli' });
});

test('package.json fields the marketplace and VS Code need', () => {
    assert.equal(pkg.name, 'kernelpro');
    assert.equal(pkg.publisher, 'kernelpro');
    assert.equal(pkg.engines.vscode, '^1.82.0');
    assert.equal(pkg.dependencies['vscode-languageclient'], '9.0.1');
    assert.deepEqual(pkg.activationEvents, ['onLanguage:cuda-cpp', 'workspaceContains:**/*.cu']);
    assert.ok(pkg.repository?.url);
    assert.ok(fs.existsSync(path.join(ROOT, 'LICENSE')));
    const commands = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const c of ['kernelpro.optimize', 'kernelpro.profileGpu', 'kernelpro.createSpec', 'kernelpro.restartServer', 'kernelpro.showLog',
        'kernelpro.candidates.showDiff', 'kernelpro.candidates.checkout', 'kernelpro.candidates.apply', 'kernelpro.candidates.delete',
        'kernelpro.candidates.refresh', 'kernelpro.showSass', 'kernelpro.setLlmApiKey', 'kernelpro.clearLlmApiKey']) {
        assert.ok(commands.includes(c), `command ${c} is contributed`);
    }
});

test('settings and their defaults come from package.json; no API key setting', () => {
    const defaults = Object.fromEntries(manifest.settings.map((s) => [s.key, s.default]));
    assert.deepEqual(defaults, {
        interpreter: [],
        'server.args': [],
        'trace.server': 'off',
        nvccPath: '',
        arch: 'auto',
        compileCommands: '',
        includePaths: [],
        defines: [],
        extraFlags: [],
        profileOn: 'save',
        typingDelayMs: 800,
        gpuProfileOnSave: false,
        useCache: true,
        inlayHints: true,
        'llm.baseUrl': '',
        'llm.model': '',
        'optimize.budget': 20,
        'optimize.objective': 'time',
        'optimize.workers': '',
        optimizerCommand: [],
    });
    const props = pkg.contributes.configuration.properties;
    assert.ok(props['kernelpro.arch'].enum.includes('sm_90') && props['kernelpro.arch'].enum[0] === 'auto');
    assert.equal(props['kernelpro.arch'].enum.length, props['kernelpro.arch'].enumDescriptions.length);
    assert.deepEqual(props['kernelpro.profileOn'].enum, ['save', 'type', 'open']);
    assert.deepEqual(props['kernelpro.optimize.objective'].enum, ['time', 'energy', 'edp']);
    assert.ok(!Object.keys(props).some((k) => /key|token|secret/i.test(k)));
});

test('initializationOptions carries the whole kernelpro section, nested like workspace/configuration', () => {
    fake.state.settings['kernelpro.arch'] = 'sm_80';
    fake.state.settings['kernelpro.defines'] = ['N=1024', 'USE_FAST'];
    fake.state.settings['kernelpro.llm.model'] = 'gpt-x';
    fake.state.settings['kernelpro.optimize.budget'] = 5;
    fake.state.settings['kernelpro.profileOn'] = 'type';
    const opts = initializationOptions(manifest.settings, undefined, true);
    assert.deepEqual(opts, {
        trusted: true,
        settings: {
            interpreter: [],
            server: { args: [] },
            trace: { server: 'off' },
            nvccPath: '',
            arch: 'sm_80',
            compileCommands: '',
            includePaths: [],
            defines: ['N=1024', 'USE_FAST'],
            extraFlags: [],
            profileOn: 'type',
            typingDelayMs: 800,
            gpuProfileOnSave: false,
            useCache: true,
            inlayHints: true,
            llm: { baseUrl: '', model: 'gpt-x' },
            optimize: { budget: 5, objective: 'time', workers: '' },
            optimizerCommand: [],
        },
    });
    // a copy: later edits of the object do not touch the configuration
    (opts.settings.defines as string[]).push('X');
    assert.deepEqual(fake.state.settings['kernelpro.defines'], ['N=1024', 'USE_FAST']);
});

test('client options: selector, configuration sync, the same init options', () => {
    const init = initializationOptions(manifest.settings, undefined, false);
    const out = fake.createOutputChannel('KernelPro') as any;
    const o = clientOptions(init, out, () => undefined, () => undefined);
    assert.deepEqual(o.documentSelector, DOCUMENT_SELECTOR);
    assert.deepEqual(DOCUMENT_SELECTOR, [
        { scheme: 'file', language: 'cuda-cpp' },
        { scheme: 'file', pattern: '**/*.cu' },
        { scheme: 'file', pattern: '**/*.cuh' },
        { scheme: 'file', pattern: '**/*.kernelpro.toml' },
    ]);
    assert.deepEqual(o.synchronize, { configurationSection: 'kernelpro' });
    assert.equal(o.initializationOptions, init);
    assert.equal(init.trusted, false); // Restricted Mode: the server reads no compile_commands.json, runs nothing
    assert.equal(o.outputChannel, out);
});

test('server is started as <python> -P -m kernelpro.lsp_server <args> over stdio, PYTHONSAFEPATH=1', () => {
    const exe = serverExecutable(['/v/bin/python', '-X', 'dev'], manifest.serverInfo, ['--log-level', 'debug'], '/home/u', { A: '1' });
    assert.equal(exe.command, '/v/bin/python');
    assert.deepEqual(exe.args, ['-X', 'dev', '-P', '-m', 'kernelpro.lsp_server', '--log-level', 'debug']);
    assert.equal(exe.transport, undefined);
    assert.deepEqual(exe.options, { cwd: '/home/u', env: { A: '1', PYTHONSAFEPATH: '1' } });
    assert.throws(() => serverExecutable([], manifest.serverInfo, [], '/ws', {}), /no Python interpreter/);
});

test('settings changes under kernelpro restart the server, others do not', () => {
    const ev = (section: string) => ({ affectsConfiguration: (s: string) => section === s || section.startsWith(s + '.') });
    assert.equal(affectsKernelpro(ev('kernelpro.arch')), true);
    assert.equal(affectsKernelpro(ev('kernelpro.llm.model')), true);
    assert.equal(affectsKernelpro(ev('editor.fontSize')), false);
});

const CU = `#include <cuda_runtime.h>
// __global__ void commented(int x) {}
__global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <int TILE>
__global__ void __launch_bounds__(256, 2) matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float s[TILE][TILE];
}
extern "C" __global__
void scale(float* x) { x[0] *= 2.0f; }
`;

test('kernels are found, comments and __launch_bounds__ skipped', () => {
    assert.deepEqual(findKernels(CU).map((k) => k.name), ['saxpy', 'matmul', 'scale']);
    assert.equal(kernelAt(CU, CU.indexOf('y[i] = a')), 'saxpy');
    assert.equal(kernelAt(CU, CU.indexOf('__shared__')), 'matmul');
    assert.equal(kernelAt(CU, CU.length), 'scale');
    assert.equal(kernelAt(CU, 0), 'saxpy'); // above every kernel: the first
    assert.equal(kernelAt('int main() {}', 3), undefined);
    assert.equal(kernelFromSpec('# spec\nkernel = "saxpy"\n[[args]]\n'), 'saxpy');
});

test('palette invocations of server commands get [uri, kernel under the cursor]', async () => {
    const editor = { uri: 'file:///w/k.cu', fsPath: '/w/k.cu', text: CU, offset: CU.indexOf('__shared__') };
    assert.deepEqual(commandArguments([], editor), ['file:///w/k.cu', 'matmul']);
    assert.deepEqual(commandArguments(['file:///lens.cu', 'saxpy'], editor), ['file:///lens.cu', 'saxpy']);
    assert.equal(commandArguments([], undefined), undefined);
    const spec = { uri: 'file:///w/saxpy.kernelpro.toml', fsPath: '/w/saxpy.kernelpro.toml', text: 'kernel = "saxpy"\n', offset: 0 };
    assert.deepEqual(commandArguments([], spec), ['file:///w/saxpy.kernelpro.toml', 'saxpy']);

    const warnings: string[] = [];
    const o = clientOptions({ settings: {}, trusted: true }, {} as any, () => editor, (m) => warnings.push(m));
    const sent: unknown[][] = [];
    const next = (command: string, args: unknown[]) => {
        sent.push([command, ...args]);
        return 'ok';
    };
    assert.equal(await o.middleware!.executeCommand!('kernelpro.optimize', [], next), 'ok');
    assert.deepEqual(sent, [['kernelpro.optimize', 'file:///w/k.cu', 'matmul']]);

    const none = clientOptions({ settings: {}, trusted: true }, {} as any, () => undefined, (m) => warnings.push(m));
    assert.equal(await none.middleware!.executeCommand!('kernelpro.profileGpu', [], next), undefined);
    assert.equal(sent.length, 1);
    assert.match(warnings[0], /kernelpro.profileGpu: open a CUDA file/);
});

test('the fake API has exactly the exports of src/vscodeapi.ts', () => {
    const src = fs.readFileSync(path.join(ROOT, 'src', 'vscodeapi.ts'), 'utf8');
    const real = [...src.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]).sort();
    const stubbed = Object.keys(fake).filter((k) => !['state', 'sassState', 'reset', 'FakeEmitter'].includes(k)).sort();
    assert.deepEqual(stubbed, real);
});

test('the walkthrough: every step has its media, every command link names a command that exists', () => {
    const root = path.resolve(__dirname, '..', '..');
    const own = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    const [walk] = pkg.contributes.walkthroughs;
    assert.deepEqual(walk.steps.map((s: { id: string }) => s.id), ['interpreter', 'finding', 'sass', 'spec', 'optimize']);
    for (const step of walk.steps) {
        assert.ok(fs.existsSync(path.join(root, step.media.markdown)), step.media.markdown);
        for (const m of step.description.matchAll(/\(command:([\w.]+)/g)) {
            assert.ok(own.has(m[1]) || m[1].startsWith('workbench.'), `${step.id}: ${m[1]}`);
        }
    }
    assert.ok(fs.existsSync(path.join(root, pkg.icon)), 'the extension icon');
});
