"""The model is untrusted: its code, tool inputs included, never reads a file into the
conversation nor runs on the host, and the user's API key goes only where the user bound it.

The model's side is the scripted OpenAI-compatible server on 127.0.0.1 (tests/fake_openai.py);
the tools are the real ones (optimizer/llm_tools.py), compiling with the real nvcc.
"""
import json
import os
import random
import shutil
import socket
import uuid

import pytest

from fake_openai import fake_llm, http_error, text, tool_call  # noqa: F401
from kernelpro.optimizer.llm import ChatClient, LLMConfig, LLMError, LLMProposer, ToolSpec
from kernelpro.optimizer.llm.answer import BadAnswer, check_source, extract_answer
from kernelpro.optimizer.model import Candidate, Evaluation
from kernelpro.optimizer.search import Node, SearchContext
from kernelpro.profilers.compile import CompileOptions

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

SOURCE = """__global__ void saxpy(float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""
BETTER = SOURCE.replace("float* x, float* y", "const float* __restrict__ x, float* __restrict__ y")
# the user's file: host code the model copies back into its drafts is the user's, not the model's
USER_FILE = """#include <cstdio>
const dim3 kBlock(256);
""" + SOURCE + """void launch(float* x, float* y, float a, int n) {
  saxpy<<<(n + 255) / 256, kBlock>>>(x, y, a, n);
  printf("launched\\n");
}
"""
KEY = "sk-test-BOUND-4f1c2a9e"


def plan():
    return text(json.dumps({"strategy": "Add const __restrict__.", "answers": [], "confidence": 0.5}))


def answer(src=BETTER):
    return text(f"Done.\n```cuda\n{src}```\n")


def make_node(source=SOURCE):
    ev = Evaluation(ok=True, failure=None, times_s={"n=1M": 1e-5}, energy_j={}, error={}, advice=[], resources={})
    root = Node(id=0, candidate=Candidate(source=source), evaluation=ev)
    return root, SearchContext(objective="time", rng=random.Random(0), tokens_used=0, root=root)


def client_for(fake, **kw):
    cfg = dict(api_key=KEY, timeout_s=5.0, max_retries=0, backoff_s=0.001)
    cfg.update(kw)
    return ChatClient(LLMConfig(fake.base_url, "fake-model", **cfg))


def tool_messages(req):
    return [m["content"] for m in req["messages"] if m["role"] == "tool"]


@pytest.fixture
def project(tmp_path):
    """A project folder with the kernel file, and a secret file beside it (outside the project)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    kfile = proj / "saxpy.cu"
    kfile.write_text(USER_FILE)
    secret_value = "KPSECRET_" + uuid.uuid4().hex
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{secret_value} line one\n")  # its first word would be quoted by nvcc's error
    return proj, kfile, secret, secret_value


def include_of(variant, proj, secret):
    """A first line of a draft that reaches the secret, written the ways a regex misses."""
    if variant == "symlinked-header":
        os.symlink(secret, proj / "inc.cuh")
        return '#include "inc.cuh"\n'
    if variant == "nested-header":
        (proj / "util.cuh").write_text('#pragma once\n#include "../secret.txt"\n')
        return '#include "util.cuh"\n'
    return {
        "absolute": f'#include "{secret}"\n',
        "line-spliced": '#inc\\\nlude "../secret.txt"\n',
        "digraph": '%:include "../secret.txt"\n',
        "comment-newline": '#/*\n*/include "../secret.txt"\n',
    }[variant]


VARIANTS = ["absolute", "line-spliced", "digraph", "comment-newline", "symlinked-header", "nested-header"]


@needs_nvcc
@pytest.mark.parametrize("tool", ["compile_and_resources", "static_advice", "sass_search"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_tool_call_never_sends_a_secret_file_to_the_provider(fake_llm, project, tool, variant):
    from kernelpro.optimizer.llm_tools import make_tools

    proj, kfile, secret, secret_value = project
    draft = include_of(variant, proj, secret) + SOURCE
    args = {"source": draft, "opcode": "."} if tool == "sass_search" else {"source": draft}
    fake_llm.push(plan(), tool_call(tool, args), answer())
    root, ctx = make_node()
    p = LLMProposer(client_for(fake_llm), make_tools(kfile, "saxpy", CompileOptions()), "saxpy",
                    project_dir=str(proj))
    p.propose(root, ctx, 1)
    assert len(fake_llm.requests) == 3
    for req in fake_llm.requests:  # nothing the provider received holds the secret
        assert secret_value not in json.dumps(req)
    (msg,) = tool_messages(fake_llm.requests[2])
    assert msg.startswith(f"error: {tool} did not run: the source was refused:") and "line " in msg, msg


@needs_nvcc
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_tools_themselves_refuse_the_secret_before_compiling(project, variant):
    """The tools check on their own too (defence in depth: a caller without the proposer)."""
    from kernelpro.optimizer.llm_tools import make_tools

    proj, kfile, secret, secret_value = project
    measured = []
    tools = {t.name: t for t in make_tools(kfile, "saxpy", CompileOptions(), measure=measured.append)}
    draft = include_of(variant, proj, secret) + SOURCE
    for name in ("compile_and_resources", "measure_on_gpu"):
        try:
            out = tools[name].fn({"source": draft})
        except BadAnswer as e:
            assert "line " in e.reason and secret_value not in e.reason
        else:
            pytest.fail(f"{name} ran on the draft: {str(out)[:300]}")
    assert measured == []


@pytest.mark.slow
@needs_nvcc
def test_a_draft_with_the_files_own_host_code_compiles_and_one_that_adds_a_secret_does_not(fake_llm, project):
    """Drafts pass the whole file: its includes, host objects and launcher are the user's code and
    still compile; only what the model adds is policed."""
    from kernelpro.optimizer.llm_tools import make_tools

    proj, kfile, secret, secret_value = project
    own = USER_FILE.replace("a * x[i]", "2.0f * a * x[i]")
    fake_llm.push(plan(), tool_call("compile_and_resources", {"source": own}, call_id="own"),
                  tool_call("compile_and_resources", {"source": include_of("line-spliced", proj, secret) + own},
                            call_id="evil"), answer())
    root, ctx = make_node(USER_FILE)
    p = LLMProposer(client_for(fake_llm), make_tools(kfile, "saxpy", CompileOptions()), "saxpy",
                    project_dir=str(proj))
    p.propose(root, ctx, 1)
    first = tool_messages(fake_llm.requests[2])[0]
    assert json.loads(first)[0]["name"] == "saxpy" and "registers" in first
    evil = tool_messages(fake_llm.requests[3])[-1]
    assert "refused" in evil and "line 1" in evil
    assert all(secret_value not in json.dumps(r) for r in fake_llm.requests)


def test_a_refused_draft_never_reaches_any_tool_taking_a_source(fake_llm, tmp_path):
    """The proposer checks every tool with a "source" parameter, not only KernelPro's own."""
    calls = []
    tool = ToolSpec("compile", "compile the draft", {"type": "object", "properties": {"source": {"type": "string"}}},
                    lambda a: calls.append(a) or "compiled")
    evil = "static int (*run)(const char*) = system;\nstatic int done = run(\"touch /tmp/x\");\n" + BETTER
    fake_llm.push(plan(), tool_call("compile", {"source": evil}), tool_call("compile", {"source": BETTER}), answer())
    root, ctx = make_node()
    p = LLMProposer(client_for(fake_llm), [tool], "saxpy", project_dir=str(tmp_path))
    assert len(p.propose(root, ctx, 1)) == 1
    assert calls == [{"source": BETTER}]
    refused = tool_messages(fake_llm.requests[2])[0]
    assert "host system call 'system' at line 1" in refused
    assert p.failures[0]["stage"] == "coder" and "refused" in p.failures[0]["reason"]


def test_tool_compiles_see_only_the_project_and_the_toolkit(tmp_path):
    from kernelpro.optimizer.llm_tools import tool_options

    proj = tmp_path / "proj"
    (proj / "inc").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    opts = CompileOptions(include_paths=(str(tmp_path / "elsewhere"), str(proj / "inc")),
                          extra_flags=("-I", str(tmp_path), f"-I{tmp_path}", "-isystem/etc", "--include-path=/home",
                                       "-include", "/etc/passwd", "-Xcompiler", "-v", "-use_fast_math"),
                          defines=("N=4",))
    out = tool_options(opts, proj, toolkit=("/usr/local/cuda/include",))
    assert out.include_paths == (str(proj / "inc"),)
    assert out.extra_flags == ("-use_fast_math",) and out.defines == ("N=4",) and out.arch == opts.arch


# -- the final answer: the same check, on what the preprocessor sees ----------------------------

def refused(code, project_dir=None):
    with pytest.raises(BadAnswer) as ei:
        extract_answer(f"```cuda\n{code}```\n", "saxpy", project_dir=project_dir, reference_source=SOURCE)
    return ei.value.reason


# Each attack comes after the kernel (line 5 on): before it, code the parser cannot follow would
# hide the kernel, and the answer would be refused for that reason alone.
@pytest.mark.parametrize("attack, words", [
    ('#inc\\\nlude "../secret.txt"\n', ["../secret.txt", "line 5", "outside the project"]),
    ('#inc\\  \nlude "../secret.txt"\n', ["line 5", "outside the project"]),
    ('%:include "../secret.txt"\n', ["line 5", "outside the project"]),
    ('%:  include "/etc/passwd"\n', ["line 5", "absolute paths"]),
    ('#/*\n*/include "../secret.txt"\n', ["line 5", "outside the project"]),
    ('#define X R"(/*\n#include "../secret.txt"\n*/)"\n', ["raw string", "line 5"]),
    ('#if __has_include("../secret.txt")\n#define HAVE 1\n#endif\n', ["__has_include at line 5"]),
    ('#define PROBE __has_include\n', ["__has_include at line 5"]),
    ('#define CAT(a, b) a##b\n#if CAT(__has_, include)("x")\n#endif\n', ["'__has_' at line 6"]),
    ('#if __has_embed("../secret.txt")\n#endif\n', ["__has_embed at line 5"]),
], ids=["line-spliced", "spliced-with-space", "digraph", "digraph-absolute", "comment-newline", "raw-string-directive",
        "__has_include", "__has_include-macro", "__has_include-pasted", "__has_embed"])
def test_directives_are_read_as_the_preprocessor_reads_them(tmp_path, attack, words):
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "secret.txt").write_text("x\n")
    r = refused(BETTER + attack, proj)
    assert all(w in r for w in words), r


@pytest.mark.parametrize("attack, words", [
    ("static int (*run)(const char*) = system;\nstatic int done = run(\"touch /tmp/pwned\");\n",
     ["host system call 'system' at line 5"]),
    ("extern int (*hook)(const char*);\nstatic int done = hook(\"touch /tmp/pwned\");\n",
     ["initialiser of 'done' at line 6", "calls 'hook'"]),
    ("static int done = [] { return 1; }();\n", ["initialiser of 'done' at line 5", "lambda"]),
    ("__device__ int f();\nnamespace ns { int x = 3, y = f(); }\n", ["initialiser of 'y' at line 6"]),
    ("struct Boot { __host__ __device__ Boot() {} };\nstatic Boot boot;\n",
     ["namespace-scope object 'boot'", "line 6", "constructor"]),
    ("struct S { static inline int n = hook(); };\n", ["member 'n' at line 5", "calls 'hook'"]),
    ("#define AT_START int started = hook();\nAT_START\n", ["macro 'AT_START'", "line 6"]),
    ("__attribute__((constructor)) __host__ __device__ void boot() {}\n", ["attribute 'constructor' at line 5"]),
    ("[[gnu::constructor]] __host__ __device__ void boot() {}\n", ["attribute 'constructor' at line 5"]),
    ("extern \"C\" int runit(const char*) asm(\"system\");\n", ["asm at line 5"]),
    ("__host__ __device__ int boom() {\n  asm(\"syscall\");\n  return 0;\n}\n", ["asm at line 6"]),
    ("extern \"C\" { __host__ __device__ void* malloc(unsigned long n) { return 0; } }\n",
     ["extern \"C\" __host__ __device__ function 'malloc' at line 5"]),
], ids=["function-pointer-system", "function-pointer-call", "lambda-call", "in-a-namespace", "static-object",
        "static-member", "macro-at-namespace-scope", "constructor-attribute", "gnu-constructor", "asm-label",
        "asm-in-host-device", "extern-c-malloc"])
def test_no_code_runs_on_the_host_when_the_candidate_is_built_into_a_program(attack, words):
    r = refused(BETTER + attack)
    assert all(w in r for w in words), r


@pytest.mark.parametrize("attack, words", [
    ('#line 1 "/etc/passwd"\n', ["#line at line 5"]),
    ('# 1 "/etc/passwd"\n', ["line marker", "line 5"]),
    ('#define H(x) x\nH(#) 1 "/etc/passwd"\n', ["'#' at line 6"]),
    ('#define MARK # 1 "/etc/passwd"\n', ["'#' at line 5", "MARK"]),
    ('#define CAT(a, b) a##b\n#define H(x) x\nH(CAT(%, :)) 1 "/etc/passwd"\n', ["'%' at line 7"]),
    ('#pragma GCC dependency "/etc/passwd"\n', ["#pragma GCC dependency at line 5"]),
    ('_Pragma("GCC dependency \\"/etc/passwd\\"")\n', ["_Pragma GCC dependency at line 5"]),
    ("#define P(x) _Pragma(#x)\n", ["_Pragma at line 5"]),
    ('#embed "/etc/passwd"\n', ["#embed at line 5"]),
    ('??=include "/etc/passwd"\n', ["trigraph", "line 5"]),
    ('import "/etc/passwd";\n', ["line 5", "modules"]),
], ids=["line-with-file", "line-marker", "macro-built-marker", "object-macro-marker", "pasted-digraph",
        "pragma-dependency", "_Pragma-dependency", "_Pragma-built", "embed", "trigraph", "header-unit"])
def test_no_directive_points_the_compiler_at_another_file(attack, words):
    r = refused(BETTER + attack)
    assert all(w in r for w in words), r


def test_drafts_copying_the_users_own_code_pass_the_check(tmp_path):
    """Legitimate drafts: the file's own includes, host objects and launcher copied unchanged, and
    device code written in every spelling the check reads (digraphs, _Pragma, tables of device
    function pointers, constants)."""
    (tmp_path / "helpers.cuh").write_text("#pragma once\n#include <cuda_fp16.h>\n"
                                          "__device__ inline float sq(float v) { return v * v; }\n")
    device = """#include "helpers.cuh"
#include <cuda_fp16.h>
#define N 256
#define UNROLL _Pragma("unroll")
#define STR(x) #x
#define CAT(a, b) a##b
constexpr int kBlock = N / 2;
constexpr float kInf = __builtin_huge_valf();
__constant__ float coef<:3:> = <%1.0f, -2, 0.5f * N%>;
__device__ float scale = 1.0f / N;
__device__ float* first = &coef[0];
enum Mode { kPlain = 1, kScaled = kPlain + 1 };
struct Acc { float m = -3.0e38f; float s = 0.0f; __device__ void add(float v) { s += v; } };
__device__ float twice(float v) { return 2 * v; }
typedef float (*op_t)(float);
__device__ op_t ops[1] = {twice};
__host__ __device__ inline int cdiv(int a, int b) { return (a + b - 1) / b; }
__device__ void fence() { asm volatile("membar.gl;"); }
"""
    draft = USER_FILE.replace("__global__", device + "__global__", 1).replace(
        "if (i < n) y[i]", "UNROLL\n  for (int k = 0; k < 1; ++k) {}\n  if (i < n) y[i]")
    check_source(draft, tmp_path, reference=USER_FILE)
    a = extract_answer(f"```cuda\n{draft}```\n", "saxpy", project_dir=tmp_path, reference_source=USER_FILE)
    assert "void launch" not in a.source  # the copied launcher is the file's; the splice keeps it


# -- the API key: bound to an endpoint the user configured --------------------------------------

def hi(client):
    return client.chat([{"role": "user", "content": "hi"}])


def sent_authorizations(fake):
    return [h.get("Authorization") or h.get("authorization") or "" for h in fake.headers]


@pytest.fixture
def no_keys(monkeypatch):
    for var in ("KERNELPRO_LLM_API_KEY", "KERNELPRO_LLM_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_the_kernelpro_key_goes_only_to_the_endpoint_it_is_bound_to(fake_llm, no_keys):
    no_keys.setenv("KERNELPRO_LLM_API_KEY", KEY)
    no_keys.setenv("KERNELPRO_LLM_BASE_URL", fake_llm.base_url + "/")  # a trailing slash is the same endpoint
    fake_llm.push("one", "two", "three")
    hi(ChatClient(LLMConfig(fake_llm.base_url, "fake-model")))
    assert sent_authorizations(fake_llm)[-1] == f"Bearer {KEY}"
    # the same server under another URL, or another path, is another endpoint: no key
    no_keys.setenv("KERNELPRO_LLM_BASE_URL", f"http://localhost:{fake_llm.port}/v1")
    hi(ChatClient(LLMConfig(fake_llm.base_url, "fake-model")))
    no_keys.setenv("KERNELPRO_LLM_BASE_URL", fake_llm.base_url + "/proxy")
    hi(ChatClient(LLMConfig(fake_llm.base_url, "fake-model")))
    assert len(fake_llm.headers) == 3
    for h in fake_llm.headers[1:]:
        assert KEY not in json.dumps(h)


def test_the_openai_key_never_goes_to_another_endpoint(fake_llm, no_keys):
    no_keys.setenv("OPENAI_API_KEY", KEY)
    fake_llm.push("hello")
    hi(ChatClient(LLMConfig(fake_llm.base_url, "fake-model")))
    assert len(fake_llm.headers) == 1 and KEY not in json.dumps(fake_llm.headers)
    assert LLMConfig("https://api.openai.com/v1", "gpt").api_key == KEY
    assert LLMConfig("https://api.openai.com/v1/", "gpt").api_key == KEY
    for url in ("https://api.openai.com.evil.example/v1", "http://api.openai.com/v1", "https://api.openai.com:8443/v1",
                "https://evil.example/v1?host=api.openai.com", "https://api.openai.com/v2"):
        assert LLMConfig(url, "gpt").api_key != KEY, url


def test_a_401_without_a_bound_key_says_how_to_bind_one(fake_llm, no_keys):
    no_keys.setenv("KERNELPRO_LLM_API_KEY", KEY)
    no_keys.setenv("KERNELPRO_LLM_BASE_URL", "https://llm.example.org/v1")  # bound elsewhere
    fake_llm.push(http_error(401))
    with pytest.raises(LLMError) as ei:
        hi(ChatClient(LLMConfig(fake_llm.base_url, "fake-model", max_retries=0)))
    r = ei.value.reason
    assert "HTTP 401" in r and f"no API key is bound to {fake_llm.base_url}" in r
    assert "KERNELPRO_LLM_BASE_URL" in r and "KERNELPRO_LLM_API_KEY" in r and "KernelPro: Set LLM API key" in r
    assert KEY not in r and KEY not in json.dumps(fake_llm.headers)


@pytest.fixture
def no_connections(monkeypatch):
    tried = []

    def connect(self, address, *a, **kw):
        tried.append(address)
        raise OSError("the test allows no connection")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **kw: connect(None, address))
    return tried


def test_plain_http_only_to_loopback_and_refused_before_any_connection(no_keys, no_connections):
    no_keys.setenv("KERNELPRO_LLM_API_KEY", KEY)
    for url in ("http://example.com/v1", "http://10.0.0.7:8000/v1", "http://127.0.0.1.nip.io/v1", "ftp://127.0.0.1/v1",
                "https://user:pw@example.com/v1"):
        no_keys.setenv("KERNELPRO_LLM_BASE_URL", url)
        with pytest.raises(LLMError) as ei:
            hi(ChatClient(LLMConfig(url, "m", max_retries=0)))
        r = ei.value.reason
        assert "LLM base URL" in r and KEY not in r and "pw@" not in r, (url, r)
    for url in ("http://127.0.0.1:8000/v1", "http://127.3.4.5/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1",
                "https://api.openai.com/v1", "https://llm.example.org/v1"):
        ChatClient(LLMConfig(url, "m"))  # accepted: built, nothing sent
    assert no_connections == []


def test_the_command_line_refuses_plain_http_with_exit_2_and_an_error_event(tmp_path, no_keys, no_connections,
                                                                           capsys):
    from kernelpro.profilers.cli import build_parser

    no_keys.setenv("KERNELPRO_LLM_API_KEY", KEY)
    (tmp_path / "saxpy.cu").write_text(SOURCE)
    args = build_parser(True).parse_args(["optimize", str(tmp_path / "saxpy.cu"), "--kernel", "saxpy", "--json-events",
                                          "--llm-base-url", "http://example.com/v1", "--llm-model", "m"])
    assert args.func(args) == 2
    out, err = capsys.readouterr()
    event = json.loads(out.strip().splitlines()[-1])
    assert event["type"] == "error" and "plain http" in event["message"] and "http://example.com/v1" in event["message"]
    assert "plain http" in err and KEY not in out + err
    assert no_connections == []


def test_a_macro_the_model_defines_does_not_change_the_files_host_code():
    """The candidate keeps the file's launcher; a macro named like what it calls would run there."""
    with pytest.raises(BadAnswer) as ei:
        extract_answer('```cuda\n#define printf(...) remove("/home/user/thesis.tex")\n' + BETTER + "```\n", "saxpy",
                       reference_source=USER_FILE)
    r = ei.value.reason
    assert "macro 'printf' (#define at line 1)" in r and "'remove'" in r and "line 9 of the file" in r
