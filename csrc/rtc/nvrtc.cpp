#include "nvrtc.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace complexext {
namespace rtc {
namespace {

// NVRTC's C API, declared here rather than from nvrtc.h (not part of every
// CUDA install, nor of torch's headers).
typedef int nvrtcResult;  // 0: NVRTC_SUCCESS
typedef struct _nvrtcProgram* nvrtcProgram;

struct Api {
  void* lib = nullptr;
  std::string where;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*GetSupportedArchs)(int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*AddNameExpression)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetLoweredName)(nvrtcProgram, const char*, const char**) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  int major = 0, minor = 0;
};

std::mutex& mu = *new std::mutex;  // never destroyed (used until exit)
std::vector<std::string>& candidates = *new std::vector<std::string>;
Api* api = nullptr;  // set once, under mu
bool tried = false;

template <class F>
bool sym(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

bool bind(void* lib, Api& a) {
  return sym(lib, "nvrtcVersion", a.Version) &&
         sym(lib, "nvrtcGetNumSupportedArchs", a.GetNumSupportedArchs) &&
         sym(lib, "nvrtcGetSupportedArchs", a.GetSupportedArchs) &&
         sym(lib, "nvrtcCreateProgram", a.CreateProgram) &&
         sym(lib, "nvrtcDestroyProgram", a.DestroyProgram) &&
         sym(lib, "nvrtcAddNameExpression", a.AddNameExpression) &&
         sym(lib, "nvrtcCompileProgram", a.CompileProgram) &&
         sym(lib, "nvrtcGetProgramLogSize", a.GetProgramLogSize) &&
         sym(lib, "nvrtcGetProgramLog", a.GetProgramLog) &&
         sym(lib, "nvrtcGetLoweredName", a.GetLoweredName) &&
         sym(lib, "nvrtcGetCUBINSize", a.GetCUBINSize) && sym(lib, "nvrtcGetCUBIN", a.GetCUBIN) &&
         sym(lib, "nvrtcGetPTXSize", a.GetPTXSize) && sym(lib, "nvrtcGetPTX", a.GetPTX) &&
         sym(lib, "nvrtcGetErrorString", a.GetErrorString);
}

// The library, opened on first use (under mu); null if none loads, with
// the reasons in *why.
Api* load(std::string* why) {
  static std::string reasons;
  if (!tried) {
    tried = true;
    std::vector<std::string> names = candidates;
    if (const char* e = std::getenv("COMPLEXEXT_NVRTC")) names.insert(names.begin(), e);
    for (const char* so : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) names.push_back(so);
    for (const std::string& name : names) {
      void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) continue;
      Api* a = new Api;
      if (!bind(lib, *a) || a->Version(&a->major, &a->minor) != 0) {
        reasons += name + ": not a usable libnvrtc; ";
        delete a;
        dlclose(lib);
        continue;
      }
      a->lib = lib;
      a->where = name;
      api = a;
      break;
    }
    if (!api)
      reasons += "no libnvrtc found (set COMPLEXEXT_NVRTC to its path, or install the NVIDIA "
                 "wheel nvidia-cuda-nvrtc)";
  }
  if (!api && why) *why = reasons;
  return api;
}

std::string result_string(const Api& a, nvrtcResult r) {
  const char* s = a.GetErrorString(r);
  return s ? s : ("NVRTC error " + std::to_string(r));
}

// Two 64-bit FNV-1a hashes with different bases: 128 bits of name.
struct Hasher {
  uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 1099511628211ull;
      b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    const unsigned char sep = 0xff;  // no two different key lists hash the same text
    a = (a ^ sep) * 1099511628211ull;
    b = (b ^ sep) * 0x100000001b3ull;
  }
  std::string hex() const {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
    return buf;
  }
};

bool make_dirs(const std::string& path) {
  if (path.empty()) return false;
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

const char kMagic[] = "complexext-rtc-image-1";

// Reads an image written by write_image; false if the file is absent or
// does not read back whole.
bool read_image(const std::string& path, Image& im) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::string magic, lowered, kind;
  int arch = 0;
  size_t size = 0;
  if (!std::getline(f, magic) || magic != kMagic || !std::getline(f, lowered) ||
      !std::getline(f, kind) || !(f >> arch >> size) || f.get() != '\n')
    return false;
  if (lowered.empty() || (kind != "cubin" && kind != "ptx") || size == 0 || size > (1u << 30))
    return false;
  std::string data(size, '\0');
  if (!f.read(&data[0], (std::streamsize)size) || f.peek() != EOF) return false;
  im.data = std::move(data);
  im.lowered = lowered;
  im.cubin = kind == "cubin";
  im.arch = arch;
  im.from_disk = true;
  im.path = path;
  return true;
}

void write_image(const std::string& path, const Image& im) {
  const std::string tmp = path + ".tmp" + std::to_string((long long)getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;  // a cache that cannot be written is no cache, not an error
    f << kMagic << "\n" << im.lowered << "\n" << (im.cubin ? "cubin" : "ptx") << "\n"
      << im.arch << " " << im.data.size() << "\n";
    f.write(im.data.data(), (std::streamsize)im.data.size());
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

void set_library_candidates(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> g(mu);
  candidates = paths;
}

int nvrtc_version(std::string* where) {
  std::lock_guard<std::mutex> g(mu);
  std::string why;
  Api* a = load(&why);
  if (where) *where = a ? a->where : why;
  return a ? a->major * 1000 + a->minor * 10 : 0;
}

std::vector<int> supported_archs() {
  std::lock_guard<std::mutex> g(mu);
  Api* a = load(nullptr);
  std::vector<int> out;
  int n = 0;
  if (!a || a->GetNumSupportedArchs(&n) != 0 || n <= 0) return out;
  out.resize(n);
  if (a->GetSupportedArchs(out.data()) != 0) out.clear();
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
std::vector<long long>& noted = *new std::vector<long long>;  // under mu
}  // namespace

void note_kernel(int arch, int n, int mode, int f64, int ti, int to, bool built) {
  std::lock_guard<std::mutex> g(mu);
  for (long long v : {arch, n, mode, f64, ti, to, (int)built}) noted.push_back(v);
}

std::vector<long long> noted_kernels() {
  std::lock_guard<std::mutex> g(mu);
  return noted;
}

std::string cache_dir() {
  const char* e = std::getenv("COMPLEXEXT_CACHE_DIR");
  std::string base;
  if (e && *e) {
    if (std::strcmp(e, "off") == 0) return "";
    base = e;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    base = std::string(x) + "/complexext";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    base = std::string(h) + "/.cache/complexext";
  } else {
    return "";
  }
  return base + "/kernels";
}

bool compile(const RegProgram& P, int arch, bool verbose, Image& out, std::string* err) {
  const std::vector<int> archs = supported_archs();
  std::lock_guard<std::mutex> g(mu);
  std::string why;
  Api* a = load(&why);
  if (!a) {
    if (err) *err = why;
    return false;
  }
  // a cubin for arch itself, else PTX of the newest architecture below it
  int target = 0;
  bool cubin = false;
  for (int s : archs) {
    if (s == arch) {
      target = s;
      cubin = true;
    } else if (s < arch && !cubin) {
      target = std::max(target, s);
    }
  }
  if (target == 0) {
    if (err)
      *err = "NVRTC " + std::to_string(a->major) + "." + std::to_string(a->minor) +
             " compiles for no architecture up to sm_" + std::to_string(arch);
    return false;
  }
  std::vector<std::string> opts = P.options;
  opts.push_back((cubin ? "-arch=sm_" : "-arch=compute_") + std::to_string(target));
  if (verbose) opts.push_back("--ptxas-options=-v");

  Hasher h;
  h.add(kMagic);
  h.add(std::to_string(a->major) + "." + std::to_string(a->minor));
  h.add(P.source);
  for (size_t i = 0; i < P.header_names.size(); ++i) {
    h.add(P.header_names[i]);
    h.add(P.header_texts[i]);
  }
  h.add(P.expression);
  for (const std::string& o : opts) h.add(o);
  const std::string dir = verbose ? std::string() : cache_dir();
  const std::string path = dir.empty() ? std::string() : dir + "/reg-" + h.hex() + ".bin";
  if (!path.empty() && read_image(path, out) && out.cubin == cubin && out.arch == target)
    return true;

  std::vector<const char*> hn, ht, op;
  for (const std::string& s : P.header_names) hn.push_back(s.c_str());
  for (const std::string& s : P.header_texts) ht.push_back(s.c_str());
  for (const std::string& s : opts) op.push_back(s.c_str());
  nvrtcProgram prog = nullptr;
  nvrtcResult r = a->CreateProgram(&prog, P.source.c_str(), P.source_name.c_str(),
                                   (int)hn.size(), ht.data(), hn.data());
  if (r != 0) {
    if (err) *err = "nvrtcCreateProgram: " + result_string(*a, r);
    return false;
  }
  struct Destroy {
    Api* a;
    nvrtcProgram* p;
    ~Destroy() { a->DestroyProgram(p); }
  } destroy{a, &prog};
  r = a->AddNameExpression(prog, P.expression.c_str());
  if (r != 0) {
    if (err) *err = "nvrtcAddNameExpression: " + result_string(*a, r);
    return false;
  }
  const nvrtcResult rc = a->CompileProgram(prog, (int)op.size(), op.data());
  size_t log_size = 0;
  std::string log;
  if (a->GetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    if (a->GetProgramLog(prog, &log[0]) != 0) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  if (rc != 0) {
    if (err) *err = "nvrtcCompileProgram (" + P.expression + "): " + result_string(*a, rc) +
                    (log.empty() ? std::string() : "\n" + log);
    return false;
  }
  const char* lowered = nullptr;
  r = a->GetLoweredName(prog, P.expression.c_str(), &lowered);
  if (r != 0 || !lowered) {
    if (err) *err = "nvrtcGetLoweredName: " + result_string(*a, r);
    return false;
  }
  Image im;
  im.lowered = lowered;
  im.cubin = cubin;
  im.arch = target;
  im.log = log;
  size_t size = 0;
  r = cubin ? a->GetCUBINSize(prog, &size) : a->GetPTXSize(prog, &size);
  if (r == 0 && size > 0) {
    im.data.resize(size);
    r = cubin ? a->GetCUBIN(prog, &im.data[0]) : a->GetPTX(prog, &im.data[0]);
  }
  if (r != 0 || size == 0) {
    if (err) *err = std::string(cubin ? "nvrtcGetCUBIN: " : "nvrtcGetPTX: ") + result_string(*a, r);
    return false;
  }
  if (!path.empty() && make_dirs(dir)) {
    write_image(path, im);
    im.path = path;
  }
  out = std::move(im);
  return true;
}

}  // namespace rtc
}  // namespace complexext
