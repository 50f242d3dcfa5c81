// The `kernelpro` command line, run with the same Python as the server: the one candidate
// store (kernelpro candidates list|show|apply|delete --json), so the editor and the terminal
// behave the same.
import { spawn } from 'child_process';
import { pythonArgv, safeEnv, saysUnknownSafePath, tooOldMessage } from './python';

export class CliError extends Error {
    // kind: what the command said ("uncommitted", "not-a-repository", "error"), or "cli" when it did not run
    constructor(
        message: string,
        readonly kind: string,
    ) {
        super(message);
    }
}

export type Runner = (args: string[], cwd: string) => Promise<unknown>;

const MAX_OUTPUT = 64 * 1024 * 1024;

// How the runner starts `<python...> -P -m <module> <args> --json` in `cwd` (the repository:
// with -P and PYTHONSAFEPATH=1 its files are never imported): no stdin, git never prompts.
export function cliCommand(
    python: string[],
    module: string,
    args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv = process.env,
): { file: string; argv: string[]; options: { cwd: string; env: NodeJS.ProcessEnv; stdio: ['ignore', 'pipe', 'pipe'] } } {
    const { file, argv } = pythonArgv(python, module, [...args, '--json']);
    return { file, argv, options: { cwd, env: safeEnv({ ...env, GIT_TERMINAL_PROMPT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] } };
}

// A Runner for the command above: resolves with the JSON on stdout, rejects with a CliError
// carrying the command's own one-line message and kind.
export function jsonRunner(python: () => Promise<string[]>, module: string): Runner {
    return async (args, cwd) => {
        const command = await python();
        const { file, argv, options } = cliCommand(command, module, args, cwd);
        const shown = [file, ...argv].join(' ');
        return new Promise((resolve, reject) => {
            let stdout = '';
            let stderr = '';
            let size = 0;
            const child = spawn(file, argv, options);
            const take = (chunk: Buffer, into: 'out' | 'err') => {
                size += chunk.length;
                if (size > MAX_OUTPUT) {
                    child.kill();
                    return;
                }
                if (into === 'out') stdout += chunk.toString('utf8');
                else stderr += chunk.toString('utf8');
            };
            child.stdout!.on('data', (c: Buffer) => take(c, 'out'));
            child.stderr!.on('data', (c: Buffer) => take(c, 'err'));
            child.on('error', (err) => reject(new CliError(`${shown} failed: ${err.message}`, 'cli')));
            child.on('close', (code, signal) => {
                let data: unknown;
                try {
                    data = stdout.trim() ? JSON.parse(stdout) : undefined;
                } catch {
                    data = undefined;
                }
                const failed = data as { ok?: boolean; error?: string; kind?: string } | undefined;
                if (code === 0 && data !== undefined) {
                    resolve(data);
                } else if (failed && failed.ok === false && typeof failed.error === 'string') {
                    reject(new CliError(failed.error, failed.kind ?? 'error'));
                } else if (saysUnknownSafePath(stderr)) {
                    reject(new CliError(tooOldMessage(command), 'cli'));
                } else {
                    const why = size > MAX_OUTPUT ? 'more than 64 MB of output' : stderr.trim() || (signal ? `killed by ${signal}` : `exit code ${code}, no output`);
                    reject(new CliError(`${shown} failed: ${why.split('\n').pop()}`, 'cli'));
                }
            });
        });
    };
}
