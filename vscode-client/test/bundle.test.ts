// The esbuild bundle loads under node with `vscode` external (any stand-in will do
// for loading) and exports the extension entry points.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import Module = require('module');
import * as path from 'node:path';
import { test } from 'node:test';

const BUNDLE = path.resolve(__dirname, '..', '..', 'dist', 'extension.js');

// A value every property, call and `new` of which is another such value.
function anything(): any {
    const f = function () {} as any;
    return new Proxy(f, {
        get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : key === 'prototype' ? {} : anything()),
        apply: () => anything(),
        construct: () => anything(),
    });
}

test('dist/extension.js loads with vscode external and exports activate/deactivate', () => {
    assert.ok(fs.existsSync(BUNDLE), 'run `npm run build` first');
    const text = fs.readFileSync(BUNDLE, 'utf8');
    assert.match(text, /require\("vscode"\)/);
    const load = (Module as any)._load;
    let asked = 0;
    (Module as any)._load = function (request: string, ...rest: unknown[]) {
        if (request === 'vscode') {
            asked++;
            return anything();
        }
        return load.call(this, request, ...rest);
    };
    try {
        const ext = require(BUNDLE);
        assert.equal(typeof ext.activate, 'function');
        assert.equal(typeof ext.deactivate, 'function');
        assert.ok(asked > 0);
    } finally {
        (Module as any)._load = load;
    }
});
