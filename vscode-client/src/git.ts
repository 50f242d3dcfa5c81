// git for what stays in the editor (the diff view, checkout): listing, applying and deleting
// candidates go through the kernelpro command line (cli.ts, candidates.ts).
import { execFile } from 'child_process';

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
        child.stdin?.end(input); // nothing else to read: no prompt can wait on it
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

// One record of `kernelpro candidates list --json`.
export interface CandidateRecord {
    branch: string;
    commit: string;
    kernel: string;
    run: string;
    n: number;
    note: unknown;
    title: string;
}

export function fromRecord(r: CandidateRecord): Candidate {
    const leaf = r.branch.split('/').slice(2).join('/') || r.branch;
    const c: Candidate = { branch: r.branch, kernel: r.kernel, run: r.run ? `${r.run}-${r.n}` : leaf, sha: r.commit, subject: r.title };
    const empty = !r.note || (typeof r.note === 'object' && Object.keys(r.note as object).length === 0);
    const note = empty ? 'no note' : parseNote(JSON.stringify(r.note));
    if (typeof note === 'string') {
        c.noteError = note;
    } else {
        c.note = note;
    }
    return c;
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

// Every file the candidate's commit changes (what Apply writes: the kernel and its launch spec),
// the kernel first: its note's "file", else the first CUDA file.
export async function candidateFiles(root: string, c: Candidate): Promise<string[]> {
    const files = (await git(root, ['diff-tree', '--no-commit-id', '--name-only', '-r', '--root', c.sha]))
        .split('\n')
        .filter((f) => f);
    const first = c.note?.file ?? files.find((f) => /\.(cu|cuh)$/.test(f)) ?? files[0];
    return first === undefined ? [] : [first, ...files.filter((f) => f !== first)];
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
