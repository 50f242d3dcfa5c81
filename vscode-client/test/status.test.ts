import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { bindStatus, SHOW_LOG_COMMAND, STATUS_NOTIFICATION, StatusBar, statusView } from '../src/status';

beforeEach(() => fake.reset());

test('status text per state', () => {
    assert.equal(statusView({ state: 'idle' }).text, '$(pulse) KernelPro');
    assert.equal(statusView({ state: 'profiling' }).text, '$(sync~spin) KernelPro: profiling');
    assert.equal(statusView({ state: 'optimizing', percentage: 40 }).text, '$(rocket) KernelPro: optimizing 40%');
    assert.equal(statusView({ state: 'optimizing', percentage: 39.6 }).text, '$(rocket) KernelPro: optimizing 40%');
    assert.equal(statusView({ state: 'optimizing', percentage: 140 }).text, '$(rocket) KernelPro: optimizing 100%');
    assert.equal(statusView({ state: 'optimizing' }).text, '$(rocket) KernelPro: optimizing');
    const err = statusView({ state: 'error', message: 'nvcc not found' });
    assert.equal(err.text, '$(error) KernelPro: error');
    assert.equal(err.error, true);
    assert.match(err.tooltip, /nvcc not found/);
});

test('malformed status params do not throw', () => {
    for (const p of [null, 42, {}, { state: 'dancing' }, { state: 'optimizing', percentage: 'x' }]) {
        const v = statusView(p);
        assert.match(v.text, /KernelPro/);
    }
    assert.equal(statusView({ state: 'dancing' }).error, false);
});

test('kernelpro/status notifications drive the status-bar item', () => {
    const handlers = new Map<string, (p: unknown) => void>();
    const client = {
        onNotification(method: string, handler: (p: unknown) => void) {
            handlers.set(method, handler);
            return { dispose: () => handlers.delete(method) };
        },
    };
    const bar = new StatusBar();
    const item = fake.state.statusItems[0];
    assert.equal(item.command, SHOW_LOG_COMMAND);
    assert.equal(item.shown, true);
    assert.equal(item.text, '$(pulse) KernelPro');

    const sub = bindStatus(client, bar);
    assert.equal(STATUS_NOTIFICATION, 'kernelpro/status');
    const send = handlers.get('kernelpro/status')!;
    send({ state: 'profiling', message: 'saxpy on GPU 0' });
    assert.equal(item.text, '$(sync~spin) KernelPro: profiling');
    assert.match(item.tooltip, /saxpy on GPU 0/);
    send({ state: 'optimizing', percentage: 40 });
    assert.equal(item.text, '$(rocket) KernelPro: optimizing 40%');
    assert.equal(item.backgroundColor, undefined);
    send({ state: 'error', message: 'worker crashed' });
    assert.deepEqual(item.backgroundColor, { id: 'statusBarItem.errorBackground' });
    send({ state: 'idle' });
    assert.equal(item.text, '$(pulse) KernelPro');
    assert.equal(item.backgroundColor, undefined);
    sub.dispose();
    assert.equal(handlers.size, 0);
});
