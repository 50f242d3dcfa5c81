import fake = require('./stub');
import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { SassBlock, SassView, sassSpans, sourceLineOf } from '../src/sass';

const BLOCKS: SassBlock[] = [
    { line: null, start: 2, end: 4 },
    { line: 7, start: 5, end: 9 },
    { line: 8, start: 10, end: 12 },
    { line: 7, start: 13, end: 14 }, // the same source line again, further down
];

beforeEach(() => fake.reset());

test('source line <-> SASS lines', () => {
    assert.deepEqual(sassSpans(BLOCKS, 7), [[5, 9], [13, 14]]);
    assert.deepEqual(sassSpans(BLOCKS, 9), []);
    assert.equal(sourceLineOf(BLOCKS, 6), 7);
    assert.equal(sourceLineOf(BLOCKS, 11), 8);
    assert.equal(sourceLineOf(BLOCKS, 3), undefined); // a block with no source line
    assert.equal(sourceLineOf(BLOCKS, 0), undefined); // the title
});

test('the view fetches from the server and keeps the cursors in step', async () => {
    const asked: string[] = [];
    const view = new SassView(async (uri) => {
        asked.push(uri);
        return { ok: true, uri, version: 1, text: 'x\n'.repeat(15), blocks: BLOCKS };
    });
    const source = { document: { uri: fake.fileUri('/w/k.cu') }, selection: { active: { line: 6 } } };
    const sass = await view.show(source as any);
    const sassUri = fake.sassState.opened[0];
    assert.equal(sassUri.scheme, 'kernelpro-sass');
    assert.equal(sassUri.query, 'file:///w/k.cu');
    assert.equal(await view.provideTextDocumentContent(sassUri), 'x\n'.repeat(15));
    assert.deepEqual(asked, ['file:///w/k.cu']);
    fake.sassState.editors.push(source);

    // cursor on source line 7 (0-based 6): both SASS blocks of line 7 light up
    fake.sassState.highlights.length = 0;
    fake.sassState.selection.fire({ textEditor: source, selections: [{ active: { line: 6 } }] });
    assert.deepEqual(fake.sassState.highlights.map((h) => [h.editor.id ?? 'source', h.spans]), [
        [(sass as any).id, [[5, 9], [13, 14]]],
        ['source', [[6, 6]]],
    ]);
    // the side the cursor moved in is not scrolled; the other side is
    assert.deepEqual(fake.sassState.highlights.map((h) => h.reveal), [true, false]);
    // cursor on a SASS line of line 8's block: source line 8 lights up, and its block
    fake.sassState.highlights.length = 0;
    fake.sassState.selection.fire({ textEditor: sass, selections: [{ active: { line: 11 } }] });
    assert.deepEqual(fake.sassState.highlights.map((h) => h.spans), [[[7, 7]], [[10, 12]]]);
    // a click in the second block of line 7 lights both blocks, and the SASS pane stays on the click
    // (revealing the first block would scroll the clicked instruction away)
    fake.sassState.highlights.length = 0;
    fake.sassState.selection.fire({ textEditor: sass, selections: [{ active: { line: 14 } }] });
    assert.deepEqual(fake.sassState.highlights.map((h) => [h.spans, h.reveal]), [
        [[[6, 6]], true],
        [[[5, 9], [13, 14]], false],
    ]);

    // a new publish for the file refetches its SASS document
    let refreshed = 0;
    view.onDidChange(() => refreshed++);
    fake.sassState.diagnostics.fire({ uris: [{ toString: () => 'file:///w/k.cu' }] });
    fake.sassState.diagnostics.fire({ uris: [{ toString: () => 'file:///w/other.cu' }] });
    assert.equal(refreshed, 1);

    // the server cannot: the document says why
    const none = new SassView(async () => ({ ok: false, reason: 'not profiled yet' }));
    assert.match(await none.provideTextDocumentContent(sassUri), /no SASS for file:\/\/\/w\/k.cu: not profiled yet/);
    view.dispose();
});
