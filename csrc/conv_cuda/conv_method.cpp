// The CUDA convolution's "auto" method, chosen from measured times (see
// conv_method.h and docs/gpu.md, "Choosing the method"):
//
//   eligible(m)  complex32: rows32, wide32, and rows, wide without a bias
//                (an fp16 output plus a bias rounds twice: about 1.4 x the
//                floor); complex64/128: rows, wide (rows32 and wide32 are
//                the same computations there). gauss never (its sums and
//                differences: about 2 x the floor in complex32).
//   nearest      among the table's lines of the call's dtype and bias that
//                time an eligible method: fewest differences in (spatial
//                dims, transposed), then the smallest
//                |log2 elems ratio| + |log2 kernel ratio| + |log2 cin ratio|
//                + |log2 cout ratio|; the first line on a tie.
//   auto         the eligible method timed fastest on the nearest line (the
//                first in rows, rows32, wide, wide32, gauss on a tie); with
//                no such line, a real weight or three spatial dims (which
//                the table does not time): rows32 for complex32 with a
//                bias, rows otherwise.
#include "conv_method.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "conv_method_table.h"

namespace complexext {
namespace conv {
namespace {

constexpr int kMethods = 5;
constexpr const char* kMethodNames[kMethods] = {"rows", "rows32", "wide", "wide32", "gauss"};
constexpr int kFields = 10 + kMethods;  // shape .. cout, torch, the methods

// What the choice looks at in a call, and what a line records of one.
struct Call {
  at::ScalarType dtype;
  int64_t dims;
  bool transposed, bias;
  double elems, kernel, cin, cout;
};

struct Line {
  Call call;
  double ms[kMethods];  // < 0: not timed
};

double number(const std::string& s, int line, bool allow_missing) {
  if (allow_missing && s == "-") return -1.0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  TORCH_CHECK(end != s.c_str() && *end == '\0' && std::isfinite(v) && v > 0,
              "convolution method table, line ", line, ": expected a positive number",
              allow_missing ? " or '-'" : "", ", got '", s, "'");
  return v;
}

bool flag(const std::string& s, int line) {
  TORCH_CHECK(s == "0" || s == "1", "convolution method table, line ", line,
              ": expected 0 or 1, got '", s, "'");
  return s == "1";
}

at::ScalarType dtype_of(const std::string& s, int line) {
  if (s == "c32") return at::kComplexHalf;
  if (s == "c64") return at::kComplexFloat;
  TORCH_CHECK(s == "c128", "convolution method table, line ", line,
              ": expected a dtype c32, c64 or c128, got '", s, "'");
  return at::kComplexDouble;
}

// Lines of whitespace-separated fields; '#' starts a comment.
std::vector<Line> parse(const std::string& text) {
  std::vector<Line> lines;
  std::istringstream in(text);
  std::string raw;
  for (int n = 1; std::getline(in, raw); ++n) {
    std::istringstream fields(raw.substr(0, raw.find('#')));
    std::vector<std::string> f;
    for (std::string s; fields >> s;) f.push_back(s);
    if (f.empty()) continue;
    TORCH_CHECK(f.size() == kFields, "convolution method table, line ", n, ": expected ",
                kFields, " fields (shape dtype dims transposed bias elems kernel cin cout "
                "torch rows rows32 wide wide32 gauss), got ", f.size());
    Line l{{dtype_of(f[1], n), static_cast<int64_t>(number(f[2], n, false)), flag(f[3], n),
            flag(f[4], n), number(f[5], n, false), number(f[6], n, false),
            number(f[7], n, false), number(f[8], n, false)},
           {}};
    number(f[9], n, true);  // torch's own time: for the reader, not the choice
    for (int m = 0; m < kMethods; ++m) l.ms[m] = number(f[10 + m], n, true);
    lines.push_back(l);
  }
  return lines;
}

bool eligible(int m, const Call& c) {
  const std::string name = kMethodNames[m];
  if (name == "gauss") return false;
  const bool f32 = name.back() == '2';
  if (c.dtype != at::kComplexHalf) return !f32;
  return f32 || !c.bias;
}

// The fastest eligible method timed on l, or -1.
int fastest(const Line& l, const Call& c) {
  int best = -1;
  for (int m = 0; m < kMethods; ++m)
    if (l.ms[m] > 0 && eligible(m, c) && (best < 0 || l.ms[m] < l.ms[best])) best = m;
  return best;
}

double size_distance(const Call& a, const Call& b) {
  const auto d = [](double x, double y) { return std::fabs(std::log2(x / y)); };
  return d(a.elems, b.elems) + d(a.kernel, b.kernel) + d(a.cin, b.cin) + d(a.cout, b.cout);
}

std::string choose(const std::vector<Line>& lines, const Call& c) {
  int best = -1, best_diff = 0;
  double best_dist = 0;
  for (const Line& l : lines) {
    if (l.call.dtype != c.dtype || l.call.bias != c.bias) continue;
    const int m = fastest(l, c);
    if (m < 0) continue;
    const int diff = (l.call.dims != c.dims) + (l.call.transposed != c.transposed);
    const double dist = size_distance(l.call, c);
    if (best < 0 || diff < best_diff || (diff == best_diff && dist < best_dist))
      best = m, best_diff = diff, best_dist = dist;
  }
  if (best >= 0) return kMethodNames[best];
  return c.dtype == at::kComplexHalf && c.bias ? "rows32" : "rows";
}

}  // namespace

std::string auto_method(const at::Tensor& input, const at::Tensor& weight, bool bias,
                        bool transposed, int64_t groups, const std::optional<std::string>& table) {
  static const std::vector<Line> compiled = parse(conv_table::kTimes);
  const int64_t dims = input.dim() - 2;
  // sizes below 1 (no channels, an empty batch) count as 1: log2 stays finite
  const auto at_least_1 = [](int64_t v) { return static_cast<double>(std::max<int64_t>(v, 1)); };
  double kernel = 1;
  for (int64_t i = 2; i < weight.dim(); ++i) kernel *= at_least_1(weight.size(i));
  const Call c{input.scalar_type(), dims, transposed, bias, at_least_1(input.numel()), kernel,
               at_least_1(input.size(1)),
               at_least_1(transposed ? weight.size(1) * groups : weight.size(0))};
  if (!weight.is_complex() || dims == 3) return choose({}, c);
  if (table.has_value()) return choose(parse(*table), c);
  return choose(compiled, c);
}

}  // namespace conv
}  // namespace complexext
