// gpgpu-sim-ptxconf: GPGPU-Sim behind ptxconf's `cmd:` protocol (oracle/src/launch.rs).
//
//   gpgpu-sim-ptxconf DIR/launch.json   one launch; the reply is the only thing on stdout:
//                                       {"status":"ok","buffers":[...]} or a located
//                                       {"status":"error","kind",...}
//   gpgpu-sim-ptxconf --capabilities    what GPGPU-Sim implements, as one JSON object
//
// The launch runs in a forked child, in a scratch directory (next to the launch file) holding the
// simulator's config (GPGPU-Sim reads ./gpgpusim.config) and a log that takes the child's stdout and stderr (the
// simulator prints dozens of lines per launch). The child opens the shim (sim.cc, which links
// GPGPU-Sim's libcudart.so) only after that redirection, and writes its reply to a file; this
// process then copies the reply to stdout, or, when the child died (GPGPU-Sim aborts on parse
// errors and failed assertions, dies of SIGFPE on an integer division by zero), turns the log into
// a located parse error or a crash report naming the signal. A hang is left to the caller's
// timeout (ptxconf's cmd backend kills the process group, the child included).
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json.h"
#include "sim.h"

#ifndef PTXCONF_GSIM_VERSION
#define PTXCONF_GSIM_VERSION "unknown version"
#endif

namespace {

// What GPGPU-Sim implements, for `--capabilities` (the protocol extension of src/backend/cmd.rs).
// - target sm_86, PTX 7.1: its newest tested configuration is SM86_RTX3070 (the one the adapter
//   runs), and sm_86 came with PTX ISA 7.1 (manual L33278); its parser checks neither `.version`
//   nor `.target`, and its instruction set stops well before 7.1 in places (no lop3, shf, bf16).
// - families: null (every family; forms it lacks fail, which is what a conform report is for).
// - lacks brx.idx: ptx.y has no rule for `.branchtargets`, so a kernel declaring the label list
//   that `brx.idx` takes does not parse.
const char *CAPABILITIES =
    "{\"name\": \"GPGPU-Sim " PTXCONF_GSIM_VERSION " (functional simulation, SM86_RTX3070 config)\", "
    "\"target\": \"sm_86\", \"ptx\": \"7.1\", \"families\": null, \"lacks\": [\"brx.idx\"]}";

// Where the child is, for crash reports.
enum Phase : int { STARTING = 0, LOADING, LAUNCHING, COPYING_BACK, DONE };
const char *PHASE_TEXT[] = {"starting the simulator", "loading the module", "running the kernel",
                            "copying the buffers back", "finishing"};

struct Buffer {
  std::string name;
  std::vector<uint8_t> bytes;
  uint64_t addr = 0;
};

struct Param {
  int buffer = -1;             // an index into the buffers, or -1 for a scalar
  std::vector<uint8_t> bytes;  // a scalar's little-endian bytes
  std::string what;            // for messages
};

struct Launch {
  std::string ptx_name;  // as the launch file names it, for locations
  std::string ptx;
  std::string entry;
  unsigned grid[3], block[3];
  unsigned shared_bytes = 0;
  std::vector<Buffer> buffers;
  std::vector<Param> params;
};

std::string error_json(const std::string &kind, const std::string &message,
                       const std::string &location = "") {
  std::string s = "{\"status\": \"error\", \"kind\": " + json_quote(kind) +
                  ", \"message\": " + json_quote(message);
  if (!location.empty()) s += ", \"location\": " + json_quote(location);
  return s + "}\n";
}

void write_all(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += (size_t)n;
  }
}

bool read_file(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

std::string dir_of(const std::string &path) {
  size_t k = path.rfind('/');
  return k == std::string::npos ? "." : path.substr(0, k == 0 ? 1 : k);
}

// --- Reading the launch file -------------------------------------------------------------------

struct Bad {
  std::string message;
};

bool parse_u64(const std::string &text, uint64_t &v) {
  if (text.empty()) return false;
  errno = 0;
  char *end = nullptr;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hex && !isdigit((unsigned char)text[0])) return false;
  unsigned long long x = strtoull(text.c_str(), &end, hex ? 16 : 10);
  if (errno || *end) return false;
  v = x;
  return true;
}

uint64_t number(const Json *j, const char *what, uint64_t max) {
  uint64_t v;
  if (!j || j->kind != Json::Number || !parse_u64(j->text, v) || v > max)
    throw Bad{std::string("`") + what + "` must be an integer from 0 to " + std::to_string(max)};
  return v;
}

std::string str(const Json *j, const char *what) {
  if (!j || j->kind != Json::String) throw Bad{std::string("`") + what + "` must be a string"};
  return j->text;
}

void dims(const Json *j, const char *what, unsigned out[3]) {
  if (!j || j->kind != Json::Array || j->items.size() != 3)
    throw Bad{std::string("`") + what + "` must be an array of 3 integers"};
  for (int k = 0; k < 3; k++) out[k] = (unsigned)number(&j->items[k], what, UINT32_MAX);
}

std::vector<uint8_t> hex_bytes(const std::string &hex, const std::string &name) {
  if (hex.size() % 2) throw Bad{"buffer `" + name + "`: `hex` has an odd number of digits"};
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t k = 0; k < out.size(); k++) {
    int v = 0;
    for (int h = 0; h < 2; h++) {
      char c = hex[2 * k + h];
      int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) throw Bad{"buffer `" + name + "`: `hex` holds a non-hex character"};
      v = v * 16 + d;
    }
    out[k] = (uint8_t)v;
  }
  return out;
}

// A scalar parameter's width from its PTX type name (without the dot).
int type_bytes(const std::string &ty) {
  static const char *names[][2] = {{"u8", "1"},   {"s8", "1"},   {"b8", "1"},   {"u16", "2"},
                                   {"s16", "2"},  {"b16", "2"},  {"f16", "2"},  {"bf16", "2"},
                                   {"u32", "4"},  {"s32", "4"},  {"b32", "4"},  {"f32", "4"},
                                   {"u64", "8"},  {"s64", "8"},  {"b64", "8"},  {"f64", "8"}};
  for (auto &n : names)
    if (ty == n[0]) return n[1][0] - '0';
  return 0;
}

// A scalar's bits: decimal (negative: two's complement) or 0x hex, within the type's width.
std::vector<uint8_t> scalar_bytes(const std::string &ty, const std::string &value) {
  int n = type_bytes(ty);
  if (!n) throw Bad{"parameter type `" + ty + "` is not a scalar PTX type"};
  uint64_t bits;
  bool neg = !value.empty() && value[0] == '-';
  uint64_t mag;
  if (!parse_u64(neg ? value.substr(1) : value, mag))
    throw Bad{"parameter value `" + value + "` is not a decimal or 0x-hex integer"};
  unsigned w = 8 * n;
  uint64_t max = w == 64 ? UINT64_MAX : (1ull << w) - 1;
  if (neg) {
    uint64_t lim = 1ull << (w - 1);
    if (mag > lim) throw Bad{"parameter value `" + value + "` does not fit " + ty};
    bits = (0 - mag) & max;
  } else {
    if (mag > max) throw Bad{"parameter value `" + value + "` does not fit " + ty};
    bits = mag;
  }
  std::vector<uint8_t> out(n);
  for (int k = 0; k < n; k++) out[k] = (uint8_t)(bits >> (8 * k));
  return out;
}

Launch read_launch(const std::string &path) {
  std::string text, err;
  if (!read_file(path, text)) throw Bad{"cannot read the launch file " + path};
  Json j;
  if (!json_parse(text, j, err)) throw Bad{"the launch file is not JSON: " + err};
  if (j.kind != Json::Object) throw Bad{"the launch file is not a JSON object"};
  Launch l;
  l.ptx_name = str(j.get("ptx"), "ptx");
  std::string ptx_path = l.ptx_name[0] == '/' ? l.ptx_name : dir_of(path) + "/" + l.ptx_name;
  if (!read_file(ptx_path, l.ptx)) throw Bad{"cannot read the module " + ptx_path};
  l.entry = str(j.get("entry"), "entry");
  dims(j.get("grid"), "grid", l.grid);
  dims(j.get("block"), "block", l.block);
  if (const Json *s = j.get("shared_bytes")) l.shared_bytes = (unsigned)number(s, "shared_bytes", UINT32_MAX);
  if (const Json *c = j.get("cluster")) {
    unsigned cl[3];
    dims(c, "cluster", cl);
    if (cl[0] * cl[1] * cl[2] != 1) throw Bad{"GPGPU-Sim has no thread block clusters"};
  }
  if (const Json *b = j.get("buffers")) {
    if (b->kind != Json::Array) throw Bad{"`buffers` must be an array"};
    for (const Json &e : b->items) {
      Buffer buf;
      buf.name = str(e.get("name"), "buffers[].name");
      for (const Buffer &o : l.buffers)
        if (o.name == buf.name) throw Bad{"two buffers are named `" + buf.name + "`"};
      const Json *hex = e.get("hex");
      const Json *size = e.get("size");
      if ((hex != nullptr) == (size != nullptr))
        throw Bad{"buffer `" + buf.name + "` needs exactly one of `hex` and `size`"};
      if (hex) buf.bytes = hex_bytes(str(hex, "buffers[].hex"), buf.name);
      else buf.bytes.assign(number(size, "buffers[].size", 1ull << 32), 0);
      l.buffers.push_back(std::move(buf));
    }
  }
  if (const Json *p = j.get("params")) {
    if (p->kind != Json::Array) throw Bad{"`params` must be an array"};
    for (const Json &e : p->items) {
      Param par;
      if (const Json *b = e.get("buffer")) {
        std::string name = str(b, "params[].buffer");
        for (size_t k = 0; k < l.buffers.size(); k++)
          if (l.buffers[k].name == name) par.buffer = (int)k;
        if (par.buffer < 0) throw Bad{"parameter names an unknown buffer `" + name + "`"};
        par.what = "buffer `" + name + "`";
      } else {
        std::string ty = str(e.get("type"), "params[].type");
        par.bytes = scalar_bytes(ty, str(e.get("value"), "params[].value"));
        par.what = ty + " " + e.get("value")->text;
      }
      l.params.push_back(std::move(par));
    }
  }
  if (l.grid[0] * (uint64_t)l.grid[1] * l.grid[2] == 0 ||
      l.block[0] * (uint64_t)l.block[1] * l.block[2] == 0)
    throw Bad{"an empty grid or block"};
  return l;
}

// --- The child: one launch on GPGPU-Sim --------------------------------------------------------

typedef int (*load_fn)(const char *, const char *, char *, size_t);
typedef size_t (*param_size_fn)(unsigned);
typedef uint64_t (*malloc_fn)(size_t);
typedef void (*to_device_fn)(uint64_t, const void *, size_t);
typedef void (*from_device_fn)(void *, uint64_t, size_t);
typedef int (*launch_fn)(const unsigned *, const unsigned *, unsigned, void **, char *, size_t);

std::string hex_of(const std::vector<uint8_t> &b) {
  static const char *digits = "0123456789abcdef";
  std::string s(2 * b.size(), '0');
  for (size_t k = 0; k < b.size(); k++) {
    s[2 * k] = digits[b[k] >> 4];
    s[2 * k + 1] = digits[b[k] & 15];
  }
  return s;
}

// Runs the launch and returns the reply. Aborts, signals and hangs of GPGPU-Sim end the process.
std::string run_child(Launch &l, const std::string &shim, volatile int *phase) {
  void *h = dlopen(shim.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return error_json("internal", std::string("cannot open the GPGPU-Sim shim: ") + dlerror());
  auto sym = [&](const char *name) {
    void *p = dlsym(h, name);
    if (!p) throw Bad{std::string("the shim lacks ") + name};
    return p;
  };
  load_fn load = (load_fn)sym("ptxconf_gsim_load");
  param_size_fn param_size = (param_size_fn)sym("ptxconf_gsim_param_size");
  malloc_fn gmalloc = (malloc_fn)sym("ptxconf_gsim_malloc");
  to_device_fn to_device = (to_device_fn)sym("ptxconf_gsim_to_device");
  from_device_fn from_device = (from_device_fn)sym("ptxconf_gsim_from_device");
  launch_fn launch = (launch_fn)sym("ptxconf_gsim_launch");

  char err[1024] = "";
  *phase = LOADING;
  int nargs = load(l.ptx.c_str(), l.entry.c_str(), err, sizeof err);
  if (nargs < 0) return error_json("launch", err);
  if ((size_t)nargs != l.params.size())
    return error_json("launch", "`" + l.entry + "` takes " + std::to_string(nargs) +
                                    " parameters; the launch gives " +
                                    std::to_string(l.params.size()));
  // Buffers 256-byte aligned, with a gap after each (GPGPU-Sim maps all memory, so the gap only
  // keeps an overrun from landing in the next buffer).
  for (Buffer &b : l.buffers) {
    size_t n = (b.bytes.size() + 255) / 256 * 256 + 256;
    b.addr = gmalloc(n);
    if (!b.bytes.empty()) to_device(b.addr, b.bytes.data(), b.bytes.size());
  }
  std::vector<std::vector<uint8_t>> storage(l.params.size());
  std::vector<void *> args(l.params.size());
  for (size_t k = 0; k < l.params.size(); k++) {
    Param &p = l.params[k];
    std::vector<uint8_t> &v = storage[k];
    if (p.buffer >= 0) {
      uint64_t a = l.buffers[p.buffer].addr;
      for (int i = 0; i < 8; i++) v.push_back((uint8_t)(a >> (8 * i)));
    } else {
      v = p.bytes;
    }
    size_t want = param_size((unsigned)k);
    if (v.size() != want)
      return error_json("launch", "parameter " + std::to_string(k) + " of `" + l.entry + "` has " +
                                      std::to_string(want) + " bytes; the launch gives " + p.what +
                                      " (" + std::to_string(v.size()) + " bytes)");
    args[k] = v.data();
  }
  *phase = LAUNCHING;
  if (launch(l.grid, l.block, l.shared_bytes, args.data(), err, sizeof err) != 0)
    return error_json("launch", err);
  *phase = COPYING_BACK;
  std::string reply = "{\"status\": \"ok\", \"buffers\": [";
  for (size_t k = 0; k < l.buffers.size(); k++) {
    Buffer &b = l.buffers[k];
    if (!b.bytes.empty()) from_device(b.bytes.data(), b.addr, b.bytes.size());
    reply += (k ? ", " : "") + std::string("{\"name\": ") + json_quote(b.name) +
             ", \"hex\": \"" + hex_of(b.bytes) + "\"}";
  }
  *phase = DONE;
  return reply + "]}\n";
}

// --- Diagnosing a child that died --------------------------------------------------------------

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\r");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The 1-based line of `ptx` equal to `text` (the parser's echo of the offending line), or 0.
unsigned line_of(const std::string &ptx, const std::string &text) {
  std::vector<std::string> src = lines_of(ptx);
  unsigned found = 0;
  for (size_t k = 0; k < src.size(); k++)
    if (trim(src[k]) == trim(text) && !trim(text).empty()) {
      if (found) return 0;  // ambiguous
      found = (unsigned)k + 1;
    }
  return found;
}

// GPGPU-Sim's parse errors, as ptx_parser.cc and ptx.l print them before aborting:
//   _1.ptx:LINE: Parse error: MESSAGE (ptx_parser.cc:N)      (a failed parse_assert)
//   _1.ptx:LINE Syntax error:                                (bison's yyerror)
//   Parse error (_1.ptx): this syntax is not (yet) implemented:
// each followed by the offending line and a caret under its column. Returns the reply, or "".
std::string parse_error(const std::string &log, const Launch &l) {
  std::vector<std::string> ls = lines_of(log);
  for (size_t k = 0; k < ls.size(); k++) {
    const std::string &s = ls[k];
    std::string message;
    unsigned line = 0;
    size_t colon = s.find(':');
    if (starts_with(s, "_1.ptx:")) {
      line = (unsigned)strtoul(s.c_str() + 7, nullptr, 10);
      size_t pe = s.find(": Parse error: ");
      if (pe != std::string::npos) {
        message = s.substr(pe + 15);
        size_t where = message.rfind(" (");
        if (where != std::string::npos) message = message.substr(0, where);
      } else if (s.find(" Syntax error:") != std::string::npos) {
        message = "syntax error";
      } else {
        continue;
      }
    } else if (starts_with(s, "Parse error (") && s.find("not (yet) implemented") != std::string::npos) {
      message = "this syntax is not (yet) implemented";
    } else {
      continue;
    }
    (void)colon;
    // The echoed line and the caret follow (after a blank line for yyerror's report).
    std::string echoed;
    unsigned col = 0;
    for (size_t m = k + 1; m < ls.size() && m <= k + 4; m++) {
      size_t caret = ls[m].find('^');
      if (caret != std::string::npos && trim(ls[m]) == "^" && m > k + 1) {
        echoed = ls[m - 1];
        // Both lines carry a 3-space indent; the caret sits under column `col`.
        col = caret >= 3 ? (unsigned)(caret - 3) + 1 : 1;
        break;
      }
    }
    std::string src_line = echoed.size() >= 3 ? echoed.substr(3) : echoed;
    if (!line) line = line_of(l.ptx, src_line);
    if (!trim(src_line).empty()) message += " at `" + trim(src_line) + "`";
    std::string loc = l.ptx_name;
    if (line) {
      loc += ":" + std::to_string(line);
      if (col) loc += ":" + std::to_string(col);
    }
    return error_json("parse", "GPGPU-Sim: " + message, loc);
  }
  return "";
}

const char *signal_text(int sig) {
  switch (sig) {
    case SIGABRT: return "SIGABRT (an abort or a failed assertion)";
    case SIGFPE: return "SIGFPE (an arithmetic exception, e.g. an integer division by zero)";
    case SIGSEGV: return "SIGSEGV (an invalid memory access)";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    default: return nullptr;
  }
}

// The log lines that say what went wrong (at most three), else its last lines.
std::string log_gist(const std::string &log) {
  std::vector<std::string> ls = lines_of(log), picked;
  for (const std::string &s : ls) {
    std::string t = trim(s);
    if (t.find("rror") != std::string::npos || t.find("Assertion") != std::string::npos ||
        t.find("not implemented") != std::string::npos ||
        t.find("nsupported") != std::string::npos || t.find("ERROR") != std::string::npos)
      picked.push_back(t);
  }
  if (picked.empty()) {
    for (const std::string &s : ls)
      if (!trim(s).empty()) picked.push_back(trim(s));
  }
  if (picked.size() > 3) picked.erase(picked.begin(), picked.end() - 3);
  std::string out;
  for (const std::string &s : picked) out += (out.empty() ? "" : " | ") + s.substr(0, 300);
  return out;
}

// The names in directory `dir` (not `.` and `..`).
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (struct dirent *e = readdir(d))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) out.push_back(e->d_name);
    closedir(d);
  }
  return out;
}

int remove_entry(const char *path, const struct stat *, int, struct FTW *) {
  remove(path);
  return 0;
}

std::string shim_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "libptxconf-gpgpu-sim.so";
  buf[n] = 0;
  return dir_of(buf) + "/libptxconf-gpgpu-sim.so";
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string &a : args)
    if (a == "--capabilities") {
      printf("%s\n", CAPABILITIES);
      return 0;
    }
  if (args.size() != 1 || starts_with(args[0], "-")) {
    fprintf(stderr, "usage: %s DIR/launch.json | --capabilities\n", argv[0]);
    return 2;
  }
  Launch l;
  try {
    l = read_launch(args[0]);
  } catch (const Bad &b) {
    write_all(1, error_json("launch", b.message));
    return 0;
  }

  std::string shim = shim_path();
  std::string exe_dir = dir_of(shim);
  // Inside the launch's directory: ptxconf's cmd backend removes that one after the launch, also
  // when its timeout killed this process before it could clean up.
  // Absolute: the child changes into it, and the reply's path must still hold there.
  char launch_dir[PATH_MAX];
  if (!realpath(dir_of(args[0]).c_str(), launch_dir)) {
    write_all(1, error_json("internal", "cannot resolve the directory of " + args[0]));
    return 0;
  }
  std::string scratch = std::string(launch_dir) + "/gpgpu-sim-XXXXXX";
  if (!mkdtemp(&scratch[0])) {
    write_all(1, error_json("internal", "cannot create a scratch directory: " + std::string(strerror(errno))));
    return 0;
  }
  // The simulator's configuration: gpgpusim.config and the interconnect file it names.
  std::string config = exe_dir + "/config";
  std::vector<std::string> config_files = entries(config);
  if (config_files.empty()) {
    write_all(1, error_json("internal", "no GPGPU-Sim configuration in " + config));
    return 0;
  }
  for (const std::string &f : config_files) {
    std::string from = config + "/" + f, to = scratch + "/" + f;
    if (symlink(from.c_str(), to.c_str()) != 0) {
      write_all(1, error_json("internal", "cannot link " + from + " into " + scratch));
      return 0;
    }
  }
  std::string log_path = scratch + "/gpgpu-sim.log", reply_path = scratch + "/reply.json";

  volatile int *phase = (volatile int *)mmap(nullptr, sizeof(int), PROT_READ | PROT_WRITE,
                                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (phase == MAP_FAILED) {
    write_all(1, error_json("internal", "mmap failed"));
    return 0;
  }
  *phase = STARTING;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    write_all(1, error_json("internal", "fork failed: " + std::string(strerror(errno))));
    return 0;
  }
  if (pid == 0) {
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0 || chdir(scratch.c_str()) != 0) _exit(70);
    dup2(log, 1);
    dup2(log, 2);
    close(log);
    // Line-buffered: GPGPU-Sim prints why before it aborts, and abort() flushes nothing.
    setvbuf(stdout, nullptr, _IOLBF, 0);
    // Functional simulation (cudaLaunch reads it at every launch).
    setenv("PTX_SIM_MODE_FUNC", "1", 1);
    std::string reply;
    try {
      reply = run_child(l, shim, phase);
    } catch (const Bad &b) {
      reply = error_json("internal", b.message);
    }
    int out = open(reply_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) _exit(71);
    write_all(out, reply);
    close(out);
    fflush(stdout);
    // Skip GPGPU-Sim's exit path (statistics, its simulation thread).
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string reply, log;
  read_file(log_path, log);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && read_file(reply_path, reply)) {
    write_all(1, reply);
  } else if (!(reply = parse_error(log, l)).empty()) {
    write_all(1, reply);
  } else {
    std::string how;
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      const char *t = signal_text(sig);
      how = "died of " + (t ? std::string(t) : "signal " + std::to_string(sig));
    } else {
      how = "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    // GPGPU-Sim names the module `_1.ptx` (the string it was given); the user has the file.
    std::string gist = log_gist(log);
    for (size_t at; (at = gist.find("_1.ptx")) != std::string::npos;) gist.replace(at, 6, l.ptx_name);
    write_all(1, error_json("internal", "GPGPU-Sim " + how + " while " +
                                            PHASE_TEXT[*phase < 0 || *phase > DONE ? 0 : *phase] +
                                            (gist.empty() ? "" : ": " + gist)));
  }
  if (!getenv("PTXCONF_KEEP_TMP")) {
    // The config links, the log, the reply, and what GPGPU-Sim leaves (checkpoint_files/,
    // _ptx_errors_XXXXXX); links are removed, never followed.
    nftw(scratch.c_str(), remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  } else {
    fprintf(stderr, "gpgpu-sim-ptxconf: kept %s\n", scratch.c_str());
  }
  return 0;
}
