// Finds CUDA kernels (`__global__` functions) in source text, and the one
// under the cursor, so palette commands can pass [uri, kernelName].

export interface KernelDecl {
    name: string;
    offset: number; // where `__global__` starts
}

// Blank out comments, string literals and __launch_bounds__(...) without moving offsets.
function mask(text: string): string {
    const blank = (m: string) => m.replace(/[^\n]/g, ' ');
    return text
        .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"/g, blank)
        .replace(/__launch_bounds__\s*\([^)]*\)/g, blank);
}

export function findKernels(text: string): KernelDecl[] {
    const masked = mask(text);
    const re = /__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(/g;
    const out: KernelDecl[] = [];
    for (let m = re.exec(masked); m; m = re.exec(masked)) {
        out.push({ name: m[1], offset: m.index });
    }
    return out;
}

// The kernel whose declaration is the last one at or before `offset`; when the
// cursor is above every kernel, the first one; undefined when there is none.
export function kernelAt(text: string, offset: number): string | undefined {
    const kernels = findKernels(text);
    if (kernels.length === 0) {
        return undefined;
    }
    const before = kernels.filter((k) => k.offset <= offset);
    return (before.length > 0 ? before[before.length - 1] : kernels[0]).name;
}

// A launch spec (*.kernelpro.toml) names its kernel as `kernel = "name"`.
export function kernelFromSpec(text: string): string | undefined {
    const m = /^\s*kernel\s*=\s*["']([^"']+)["']/m.exec(text);
    return m ? m[1] : undefined;
}

export function isSpecFile(path: string): boolean {
    return path.endsWith('.kernelpro.toml');
}
