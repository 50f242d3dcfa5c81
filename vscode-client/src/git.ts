// Candidates live in git: branches under refs/heads/kernelpro/ and a JSON note
// per branch tip in refs/notes/kernelpro. Runs the git command line.
import { execFile } from 'child_process';

export const BRANCH_PREFIX = 'refs/heads/kernelpro/';
export const NOTES_REF = 'kernelpro';

export class GitError extends Error {
    constructor(
        readonly args: string[],
        readonly cwd: string,
        readonly stderr: string,
    ) {
        super(`git ${args.join(' ')} (in ${cwd}) failed: ${stderr.trim() || 'no message'}`);
    }
}

export function git(cwd: string, args: string[], input?: string): Promise<string> {
    return new Promise((resolve, reject) => {
        const child = execFile(
            'git',
            args,
            { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } },
            (err, stdout, stderr) => {
                if (err) {
                    reject(new GitError(args, cwd, String(stderr || err.message)));
                } else {
                    resolve(String(stdout));
                }
            },
        );
        if (input !== undefined) {
            child.stdin?.end(input);
        }
    });
}

export async function repoRoot(folder: string): Promise<string | undefined> {
    try {
        return (await git(folder, ['rev-parse', '--show-toplevel'])).trim() || undefined;
    } catch {
        return undefined;
    }
}

export interface EnergyJ {
    before: number | null;
    after: number | null;
}

export interface CandidateNote {
    kernel: string;
    speedup: number;
    energy_j: EnergyJ;
    file: string;
    objective: string;
    [extra: string]: unknown;
}

export interface Candidate {
    branch: string; // e.g. kernelpro/saxpy/run3-2
    kernel: string; // from the branch name
    run: string; // the part after the kernel, e.g. run3-2
    sha: string; // branch tip
    subject: string;
    note?: CandidateNote; // absent when missing or malformed
    noteError?: string; // why it is absent
}

const SEP = '\t'; // git refnames cannot hold control characters

export const FOR_EACH_REF_FORMAT = ['%(refname)', '%(objectname)', '%(subject)'].join('%09');

// Parses `git for-each-ref --format=FOR_EACH_REF_FORMAT refs/heads/kernelpro/` output.
export function parseForEachRef(output: string): Candidate[] {
    const out: Candidate[] = [];
    for (const line of output.split('\n')) {
        if (!line.trim()) {
            continue;
        }
        const [ref, sha, ...subject] = line.split(SEP);
        if (!ref.startsWith('refs/heads/') || !sha) {
            continue;
        }
        const branch = ref.slice('refs/heads/'.length);
        const parts = branch.split('/'); // kernelpro/<kernel>/<run>-<n>
        const kernel = parts.length >= 3 ? parts[1] : '(other)';
        const run = parts.length >= 3 ? parts.slice(2).join('/') : parts.slice(1).join('/');
        out.push({ branch, kernel, run, sha, subject: subject.join(SEP) });
    }
    return out;
}

function isNum(v: unknown): v is number {
    return typeof v === 'number' && Number.isFinite(v);
}

function numOrNull(v: unknown): v is number | null {
    return v === null || v === undefined || isNum(v);
}

// Parses a note; returns an error string instead of throwing.
export function parseNote(text: string): CandidateNote | string {
    let data: unknown;
    try {
        data = JSON.parse(text);
    } catch (err) {
        return `note is not JSON (${(err as Error).message})`;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
        return 'note is not a JSON object';
    }
    const d = data as Record<string, unknown>;
    if (typeof d.kernel !== 'string') return 'note lacks "kernel" (string)';
    if (!isNum(d.speedup)) return 'note lacks "speedup" (number)';
    if (typeof d.file !== 'string' || !d.file) return 'note lacks "file" (string)';
    const e = d.energy_j as Record<string, unknown> | undefined;
    if (e !== undefined && e !== null && (typeof e !== 'object' || !numOrNull(e.before) || !numOrNull(e.after))) {
        return 'note "energy_j" must be {"before": number|null, "after": number|null}';
    }
    const energy: EnergyJ = {
        before: isNum(e?.before) ? e!.before : null,
        after: isNum(e?.after) ? e!.after : null,
    };
    return { ...d, kernel: d.kernel, speedup: d.speedup, file: d.file, energy_j: energy, objective: typeof d.objective === 'string' ? d.objective : 'time' };
}

export async function readNote(root: string, sha: string): Promise<CandidateNote | string> {
    let text: string;
    try {
        text = await git(root, ['notes', `--ref=${NOTES_REF}`, 'show', sha]);
    } catch {
        return 'no note';
    }
    return parseNote(text);
}

export async function listCandidates(root: string): Promise<Candidate[]> {
    const out = await git(root, ['for-each-ref', `--format=${FOR_EACH_REF_FORMAT}`, BRANCH_PREFIX]);
    const candidates = parseForEachRef(out);
    await Promise.all(
        candidates.map(async (c) => {
            const note = await readNote(root, c.sha);
            if (typeof note === 'string') {
                c.noteError = note;
            } else {
                c.note = note;
            }
        }),
    );
    return candidates;
}

// The file a candidate changes: its note's "file", else the first file the tip commit touches.
export async function candidateFile(root: string, c: Candidate): Promise<string | undefined> {
    if (c.note?.file) {
        return c.note.file;
    }
    const files = (await git(root, ['diff-tree', '--no-commit-id', '--name-only', '-r', '--root', c.sha]))
        .split('\n')
        .filter((f) => f);
    return files.find((f) => /\.(cu|cuh)$/.test(f)) ?? files[0];
}

// Content of `file` at `rev`; '' when the file does not exist there.
export async function showFile(root: string, rev: string, file: string): Promise<string> {
    try {
        return await git(root, ['show', `${rev}:${file}`]);
    } catch {
        return '';
    }
}

// Tracked changes in the working tree or index (untracked files do not block a checkout).
export async function isDirty(root: string): Promise<boolean> {
    return (await git(root, ['status', '--porcelain', '--untracked-files=no'])).trim().length > 0;
}

// Uncommitted changes to one file, untracked included (it would be overwritten).
export async function fileDirty(root: string, file: string): Promise<boolean> {
    return (await git(root, ['status', '--porcelain', '--', file])).trim().length > 0;
}

export async function currentBranch(root: string): Promise<string | undefined> {
    try {
        return (await git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).trim();
    } catch {
        return undefined;
    }
}
