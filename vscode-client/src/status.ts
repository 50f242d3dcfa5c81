// The status-bar item, driven by the server's `kernelpro/status` notification.
import type { Disposable, StatusBarItem } from 'vscode';
import { createStatusBarItem, themeColor } from './vscodeapi';

export const STATUS_NOTIFICATION = 'kernelpro/status';
export const SHOW_LOG_COMMAND = 'kernelpro.showLog';

export type State = 'idle' | 'profiling' | 'optimizing' | 'error';

export interface StatusParams {
    state: State;
    message?: string;
    percentage?: number;
}

export interface StatusView {
    text: string;
    tooltip: string;
    error: boolean;
}

const ICONS: Record<State, string> = {
    idle: '$(pulse)',
    profiling: '$(sync~spin)',
    optimizing: '$(rocket)',
    error: '$(error)',
};

function isState(value: unknown): value is State {
    return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ICONS, value);
}

export function statusView(params: unknown): StatusView {
    const p = (typeof params === 'object' && params !== null ? params : {}) as Partial<StatusParams>;
    const message = typeof p.message === 'string' && p.message ? p.message : undefined;
    if (!isState(p.state)) {
        return { text: `${ICONS.idle} KernelPro`, tooltip: `KernelPro: unknown status ${JSON.stringify(params)}`, error: false };
    }
    const state = p.state;
    let text = `${ICONS[state]} KernelPro`;
    if (state !== 'idle') {
        text += `: ${state}`;
        if (typeof p.percentage === 'number' && Number.isFinite(p.percentage) && state !== 'error') {
            text += ` ${Math.round(Math.min(100, Math.max(0, p.percentage)))}%`;
        }
    }
    const tooltip = `KernelPro: ${message ?? state} (click to show the log)`;
    return { text, tooltip, error: state === 'error' };
}

export class StatusBar {
    readonly item: StatusBarItem;

    constructor() {
        this.item = createStatusBarItem();
        this.item.name = 'KernelPro';
        this.item.command = SHOW_LOG_COMMAND;
        this.update({ state: 'idle', message: 'starting' });
        this.item.show();
    }

    update(params: unknown): StatusView {
        const view = statusView(params);
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
        this.item.backgroundColor = view.error ? themeColor('statusBarItem.errorBackground') : undefined;
        return view;
    }

    dispose(): void {
        this.item.dispose();
    }
}

// Routes the server's kernelpro/status notifications to the status bar.
export function bindStatus(
    client: { onNotification(method: string, handler: (params: unknown) => void): Disposable },
    status: Pick<StatusBar, 'update'>,
): Disposable {
    return client.onNotification(STATUS_NOTIFICATION, (params) => {
        status.update(params);
    });
}
