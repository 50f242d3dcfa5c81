// The `kernelpro` command line, run with the same Python as the server: the one candidate
// store (kernelpro candidates list|show|apply|delete --json), so the editor and the terminal
// behave the same.
import { execFile } from 'child_process';

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

// A Runner for `<python...> -m <module> <args> --json`: resolves with the JSON on stdout,
// rejects with a CliError carrying the command's own one-line message and kind.
export function jsonRunner(python: () => Promise<string[]>, module: string): Runner {
    return async (args, cwd) => {
        const command = await python();
        const argv = [...command.slice(1), '-m', module, ...args, '--json'];
        return new Promise((resolve, reject) => {
            execFile(
                command[0],
                argv,
                { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
                (err, stdout, stderr) => {
                    let data: unknown;
                    try {
                        data = stdout.trim() ? JSON.parse(stdout) : undefined;
                    } catch {
                        data = undefined;
                    }
                    const failed = data as { ok?: boolean; error?: string; kind?: string } | undefined;
                    if (!err && data !== undefined) {
                        resolve(data);
                    } else if (failed && failed.ok === false && typeof failed.error === 'string') {
                        reject(new CliError(failed.error, failed.kind ?? 'error'));
                    } else {
                        const last = String(stderr || err?.message || 'no output').trim().split('\n').pop();
                        reject(new CliError(`${[command[0], ...argv].join(' ')} failed: ${last}`, 'cli'));
                    }
                },
            );
        });
    };
}
