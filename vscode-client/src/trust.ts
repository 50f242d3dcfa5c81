// Workspace trust. In Restricted Mode KernelPro stays active with its static advice; what runs
// the workspace's code, or git in its repository (whose configuration and hooks can run
// programs), is refused with the reason. package.json's `enablement` greys these commands out
// in menus and the palette; code lenses and code actions call them anyway, so each is checked
// here too (and the server, told `trusted: false`, refuses Optimize and Profile on GPU itself).
import { executeCommand, isWorkspaceTrusted, showWarningMessage } from './vscodeapi';

// Server commands that run the workspace's kernels, launch specs and build settings.
export const TRUSTED_SERVER_COMMANDS: readonly string[] = ['kernelpro.optimize', 'kernelpro.profileGpu'];
// The Candidates view's commands: they run git and the kernelpro command line in the repository.
export const TRUSTED_CANDIDATE_COMMANDS: readonly string[] = [
    'kernelpro.candidates.showDiff',
    'kernelpro.candidates.checkout',
    'kernelpro.candidates.apply',
    'kernelpro.candidates.delete',
];
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';
export const MANAGE_TRUST = 'Manage Workspace Trust';

export function restrictedMessage(what: string): string {
    return (
        `KernelPro: ${what} is off in Restricted Mode: it runs code from this workspace. ` +
        'Trust the folder to use it (the static advice works without).'
    );
}

// True in a trusted workspace; otherwise says why `what` is refused (offering the trust
// editor) and returns false.
export function requireTrust(what: string): boolean {
    if (isWorkspaceTrusted()) {
        return true;
    }
    void showWarningMessage(restrictedMessage(what), false, MANAGE_TRUST).then((choice) => {
        if (choice === MANAGE_TRUST) {
            void executeCommand(MANAGE_TRUST_COMMAND);
        }
    });
    return false;
}

// "kernelpro.profileGpu" -> "Profile on GPU", for messages.
export function commandTitle(command: string): string {
    const titles: Record<string, string> = {
        'kernelpro.optimize': 'Optimize',
        'kernelpro.profileGpu': 'Profile on GPU',
        'kernelpro.candidates.showDiff': 'Show Diff of a candidate',
        'kernelpro.candidates.checkout': 'Check Out of a candidate',
        'kernelpro.candidates.apply': 'Apply of a candidate',
        'kernelpro.candidates.delete': 'Delete of a candidate',
    };
    return titles[command] ?? command;
}
