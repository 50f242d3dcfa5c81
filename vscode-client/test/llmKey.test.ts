// The LLM API key: in SecretStorage, bound to the endpoint in the User settings.
import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { ApiKeys, BOUND_KEY, endpointProblem, KEY_ENV, llmEnv, normalizeUrl, secretName, URL_ENV } from '../src/llmKey';

function secrets() {
    const data = new Map<string, string>();
    return {
        data,
        get: async (k: string) => data.get(k),
        store: async (k: string, v: string) => void data.set(k, v),
        delete: async (k: string) => void data.delete(k),
    };
}

function memory() {
    const data = new Map<string, unknown>();
    return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: async (k: string, v: unknown) => void data.set(k, v) };
}

const URL_A = 'https://llm.example.com/v1';

beforeEach(() => fake.reset());

test('endpoints a key may go to: https, or plain http to this machine only', () => {
    for (const ok of [URL_A, 'https://api.openai.com/v1/', 'http://127.0.0.1:8000/v1', 'http://localhost:11434/v1', 'http://[::1]:8080', 'HTTP://LOCALHOST/v1']) {
        assert.equal(endpointProblem(ok), undefined, ok);
    }
    for (const bad of ['http://10.0.0.5:8000/v1', 'http://llm.internal/v1', 'http://127.0.0.1.evil.example/v1', 'http://localhost.evil.example',
        'ftp://127.0.0.1/', 'file:///etc/passwd', 'not a url', '', 'https://user:pw@llm.example.com/v1']) {
        assert.ok(endpointProblem(bad), bad);
    }
    assert.match(endpointProblem('http://llm.internal/v1')!, /plain http to another machine/);
    assert.equal(normalizeUrl('https://LLM.Example.com/v1/'), URL_A);
    assert.equal(secretName('https://LLM.Example.com/v1/'), secretName(URL_A));
    assert.ok(secretName(URL_A).includes(URL_A)); // the secret's name says which endpoint it is for
});

test('Set LLM API key: stored in SecretStorage under the endpoint from the User settings', async () => {
    const s = secrets();
    const m = memory();
    const keys = new ApiKeys(s, m);
    fake.state.settings['kernelpro.llm.baseUrl'] = URL_A + '/';
    fake.state.inputs.push(' sk-test-1 ');
    assert.equal(await keys.set(), 'stored');
    assert.deepEqual([...s.data.entries()], [[secretName(URL_A), 'sk-test-1']]);
    assert.deepEqual(m.data.get(BOUND_KEY), [URL_A]); // the endpoints, never the keys
    assert.ok(![...m.data.values()].some((v) => JSON.stringify(v).includes('sk-test')));
    assert.equal(fake.state.inputPrompts[0].password, true);
    assert.match(fake.state.inputPrompts[0].prompt, /llm\.example\.com/);
    // cancelled input: nothing stored
    fake.state.inputs.push(undefined);
    assert.equal(await keys.set(), 'cancelled');
});

test('Set LLM API key refuses plain http to another machine, and a URL only a workspace sets', async () => {
    const s = secrets();
    const keys = new ApiKeys(s, memory());
    fake.state.settings['kernelpro.llm.baseUrl'] = 'http://llm.internal:8080/v1';
    fake.state.inputs.push('sk-x');
    assert.equal(await keys.set(), 'refused');
    assert.match(fake.state.messages[0].message, /not storing an API key .*plain http to another machine/);
    assert.equal(fake.state.inputPrompts.length, 0); // never even asked for the key
    assert.equal(s.data.size, 0);

    fake.reset();
    fake.state.folderSettings['kernelpro.llm.baseUrl'] = 'https://collector.evil.example/v1'; // .vscode/settings.json
    fake.state.inputs.push('sk-x');
    assert.equal(await keys.set(), 'refused');
    assert.match(fake.state.messages[0].message, /set kernelpro\.llm\.baseUrl in your User settings first/);
    assert.equal(s.data.size, 0);

    fake.reset();
    fake.state.settings['kernelpro.llm.baseUrl'] = 'http://127.0.0.1:8000/v1'; // a local server is fine
    fake.state.inputs.push('local');
    assert.equal(await keys.set(), 'stored');
});

test('the server gets the key only while the configured endpoint is the bound one', async () => {
    const s = secrets();
    const keys = new ApiKeys(s, memory());
    fake.state.settings['kernelpro.llm.baseUrl'] = URL_A;
    fake.state.inputs.push('sk-a');
    await keys.set();
    const base = { PATH: '/usr/bin', OPENAI_API_KEY: 'sk-openai', [KEY_ENV]: 'sk-from-env' };

    const env = await keys.serverEnv(base);
    assert.equal(env[KEY_ENV], 'sk-a');
    assert.equal(env[URL_ENV], URL_A);
    assert.equal(env.OPENAI_API_KEY, 'sk-openai'); // the optimizer sends it to api.openai.com only
    assert.equal(env.PATH, '/usr/bin');

    // a workspace points the setting elsewhere: ignored, the user's endpoint still has the key
    fake.state.folderSettings['kernelpro.llm.baseUrl'] = 'https://collector.evil.example/v1';
    fake.state.workspaceSettings['kernelpro.llm.baseUrl'] = 'https://collector.evil.example/v1';
    assert.equal((await keys.serverEnv(base))[URL_ENV], URL_A);

    // the user changes the endpoint: the key stays behind, and the environment's key goes too
    fake.state.settings['kernelpro.llm.baseUrl'] = 'https://other.example.com/v1';
    const moved = await keys.serverEnv(base);
    assert.equal(moved[KEY_ENV], undefined);
    assert.equal(moved[URL_ENV], undefined);
    // ... unless the user's own environment names the endpoint for its key
    const own = await keys.serverEnv({ ...base, [URL_ENV]: 'https://mine.example.com/v1' });
    assert.equal(own[KEY_ENV], 'sk-from-env');
    assert.equal(own[URL_ENV], 'https://mine.example.com/v1');

    // a key stored some other way for plain http to another machine is never handed out
    fake.state.settings['kernelpro.llm.baseUrl'] = 'http://llm.internal/v1';
    s.data.set(secretName('http://llm.internal/v1'), 'sk-plain');
    assert.equal((await keys.serverEnv(base))[KEY_ENV], undefined);

    assert.deepEqual(llmEnv({ A: '1', [KEY_ENV]: 'k' }, undefined), { A: '1' });
    assert.deepEqual(llmEnv({ A: '1' }, { url: URL_A, key: 'k' }), { A: '1', [KEY_ENV]: 'k', [URL_ENV]: URL_A });
});

test('Clear LLM API key: the configured endpoint\'s, or the one picked', async () => {
    const s = secrets();
    const m = memory();
    const keys = new ApiKeys(s, m);
    assert.equal(await keys.clear(), 'none');
    for (const [url, key] of [[URL_A, 'a'], ['http://localhost:8000/v1', 'b'], ['https://c.example.com', 'c']]) {
        fake.state.settings['kernelpro.llm.baseUrl'] = url;
        fake.state.inputs.push(key);
        assert.equal(await keys.set(), 'stored');
    }
    fake.state.settings['kernelpro.llm.baseUrl'] = URL_A;
    assert.equal(await keys.clear(), 'cleared');
    assert.equal(s.data.has(secretName(URL_A)), false);
    assert.equal(s.data.size, 2);
    // the configured one has none: pick
    fake.state.picks.push('http://localhost:8000/v1');
    assert.equal(await keys.clear(), 'cleared');
    assert.deepEqual([...s.data.values()], ['c']);
    fake.state.picks.push(undefined);
    assert.equal(await keys.clear(), 'cleared'); // one left: cleared without asking
    assert.equal(s.data.size, 0);
    assert.deepEqual(m.data.get(BOUND_KEY), []);
});
