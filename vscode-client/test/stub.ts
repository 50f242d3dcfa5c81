// Import first: puts the fake in require's cache where src/vscodeapi would load.
import Module = require('module');
import * as fake from './fakeVscodeApi';

const target = require.resolve('../src/vscodeapi');
const m = new Module(target);
m.filename = target;
m.loaded = true;
m.exports = fake;
require.cache[target] = m;

export = fake;
