// The Python module complexext._C: loading it runs the op registrations
// (ops.cpp and the backends' TORCH_LIBRARY_IMPL blocks). Its one function is
// a cheaper way into an op for eager calls that need no derivative.
//
// call_below_autograd(op, *args) calls complexext::<op> through the
// dispatcher below autograd, as torch.ops.complexext.<op> does inside
// torch._C._AutoDispatchBelowADInplaceOrView(), but without torch.ops'
// generic argument parsing (about 3 us of a 5 us call on a small tensor).
// The dispatcher still routes the call: backend kernels by device, Python
// dispatch modes (fake tensors, TorchDispatchMode) and functionalization.
// What it skips is __torch_function__: the Python caller takes this way only
// for plain torch.Tensor arguments with no torch-function mode active
// (complexext/_ops/fast.py).
#include <Python.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

#include <ATen/core/LegacyTypeDispatch.h>  // at::AutoDispatchBelowADInplaceOrView (not included by the others in torch 2.11)
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <cstring>
#include <optional>
#include <vector>

namespace {

using at::Tensor;

const Tensor& tensor_arg(PyObject* o, const char* op, const char* what) {
  TORCH_CHECK_TYPE(THPVariable_Check(o), "complexext.", op, ": ", what, " must be a Tensor");
  return THPVariable_Unpack(o);
}

int64_t int_arg(PyObject* o, const char* op, const char* what) {
  TORCH_CHECK_TYPE(PyLong_Check(o) && !PyBool_Check(o), "complexext.", op, ": ", what,
                   " must be an int");
  const int64_t v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

bool bool_arg(PyObject* o, const char* op, const char* what) {
  TORCH_CHECK_TYPE(PyBool_Check(o), "complexext.", op, ": ", what, " must be a bool");
  return o == Py_True;
}

std::vector<int64_t> ints_arg(PyObject* o, const char* op, const char* what) {
  TORCH_CHECK_TYPE(PyTuple_Check(o) || PyList_Check(o), "complexext.", op, ": ", what,
                   " must be a tuple or list of ints");
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  std::vector<int64_t> out(n);
  for (Py_ssize_t i = 0; i < n; ++i) out[i] = int_arg(items[i], op, what);
  return out;
}

std::string str_arg(PyObject* o, const char* op, const char* what) {
  TORCH_CHECK_TYPE(PyUnicode_Check(o), "complexext.", op, ": ", what, " must be a str");
  Py_ssize_t size = 0;
  const char* s = PyUnicode_AsUTF8AndSize(o, &size);
  if (s == nullptr) throw python_error();
  return std::string(s, size);
}

template <class Fn>
c10::TypedOperatorHandle<Fn> handle(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").template typed<Fn>();
}

template <class Fn, class... Args>
Tensor call(const c10::TypedOperatorHandle<Fn>& op, Args&&... args) {
  pybind11::gil_scoped_release no_gil;
  at::AutoDispatchBelowADInplaceOrView below;
  return op.call(std::forward<Args>(args)...);
}

// The out= forms (fft_c2c_out, fft_r2c_out, fft_c2r_out) go through the
// dispatcher's ADInplaceOrView kernel (ops.cpp), which bumps out's version
// counter: only the autograd keys are skipped.
template <class Fn, class... Args>
void call_out(const c10::TypedOperatorHandle<Fn>& op, Args&&... args) {
  pybind11::gil_scoped_release no_gil;
  c10::impl::ExcludeDispatchKeyGuard no_autograd(c10::autograd_dispatch_keyset);
  op.call(std::forward<Args>(args)...);
}
using FftC2c = Tensor(const Tensor&, c10::IntArrayRef, int64_t, bool);
using FftR2c = Tensor(const Tensor&, c10::IntArrayRef, int64_t, bool);
using FftC2r = Tensor(const Tensor&, c10::IntArrayRef, int64_t, int64_t);
using Stft = Tensor(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool, int64_t,
                    c10::string_view);
using Conv = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, c10::IntArrayRef,
                    c10::IntArrayRef, c10::IntArrayRef, bool, c10::IntArrayRef, int64_t);
using Istft = Tensor(const Tensor&, const Tensor&, int64_t, int64_t, int64_t, bool, int64_t,
                     int64_t);

using FftFlagOut = Tensor&(const Tensor&, c10::IntArrayRef, int64_t, bool, Tensor&);
using FftLenOut = Tensor&(const Tensor&, c10::IntArrayRef, int64_t, int64_t, Tensor&);

// The dtype an out= form writes for input dtype t: same (c2c), complex of
// (r2c), real of (c2r); Undefined where the op takes no such input.
c10::ScalarType out_dtype(char kind, c10::ScalarType t) {
  using S = c10::ScalarType;
  if (kind == 'c') return t == S::ComplexHalf || t == S::ComplexFloat || t == S::ComplexDouble ? t : S::Undefined;
  if (kind == 'r')
    return t == S::Half ? S::ComplexHalf : t == S::Float ? S::ComplexFloat
         : t == S::Double ? S::ComplexDouble : S::Undefined;
  return t == S::ComplexHalf ? S::Half : t == S::ComplexFloat ? S::Float
       : t == S::ComplexDouble ? S::Double : S::Undefined;
}

// Whether an out= form may write out itself: CPU tensors, out contiguous,
// with no conj or neg bit, of the result's dtype and shape (the last of
// dim resized to `last`, if >= 0), in memory of its own. Otherwise the
// caller computes the result and copies it into out (resizing, casting;
// and refusing an inference tensor outside inference mode, as torch does).
bool writes_out(char kind, const Tensor& x, const std::vector<int64_t>& dim, int64_t last,
                const Tensor& out) {
  if (x.layout() != at::kStrided || out.layout() != at::kStrided || !x.is_cpu() ||
      !out.is_cpu() || dim.empty() || !out.is_contiguous() || out.is_conj() ||
      out.is_neg() || out.scalar_type() != out_dtype(kind, x.scalar_type()) ||
      out.dim() != x.dim() || (out.is_inference() && !c10::InferenceMode::is_enabled()))
    return false;
  const int64_t d = dim.back();
  if (d < 0 || d >= x.dim()) return false;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (out.size(i) != (i == d && last >= 0 ? last : x.size(i))) return false;
  return !out.is_alias_of(x) &&
         out.storage().data_ptr().get() != x.storage().data_ptr().get();
}

void need(Py_ssize_t nargs, Py_ssize_t want, const char* op) {
  TORCH_CHECK_TYPE(nargs == want, "complexext.", op, ": expected ", want, " arguments, got ",
                   nargs);
}

// call_below_autograd(name, *args): name one of fft_c2c, fft_r2c, fft_c2r,
// their out= forms (fft_c2c_out ...: out last; None back where writes_out
// does not hold), stft, istft, convolution, with the op's arguments in its
// schema's order, all given.
PyObject* call_below_autograd(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  TORCH_CHECK_TYPE(nargs >= 1 && PyUnicode_Check(args[0]),
                   "complexext._C.call_below_autograd: expected an op name first");
  const char* name = PyUnicode_AsUTF8(args[0]);
  if (name == nullptr) throw python_error();
  PyObject* const* a = args + 1;
  const Py_ssize_t n = nargs - 1;
  Tensor y;
  if (std::strcmp(name, "fft_c2c") == 0 || std::strcmp(name, "fft_r2c") == 0) {
    need(n, 4, name);
    const Tensor& x = tensor_arg(a[0], name, "self");
    const std::vector<int64_t> dim = ints_arg(a[1], name, "dim");
    const int64_t norm = int_arg(a[2], name, "normalization");
    const bool flag = bool_arg(a[3], name, name[4] == 'c' ? "forward" : "onesided");
    static const auto c2c = handle<FftC2c>("complexext::fft_c2c");
    static const auto r2c = handle<FftR2c>("complexext::fft_r2c");
    y = call(name[4] == 'c' ? c2c : r2c, x, dim, norm, flag);
  } else if (std::strcmp(name, "fft_c2c_out") == 0 || std::strcmp(name, "fft_r2c_out") == 0 ||
             std::strcmp(name, "fft_c2r_out") == 0) {
    // Returns out, or None where out is not one the op writes itself
    // (writes_out): then nothing is written.
    need(n, 5, name);
    const char kind = std::strcmp(name, "fft_c2c_out") == 0   ? 'c'
                      : std::strcmp(name, "fft_r2c_out") == 0 ? 'r'
                                                              : '2';  // c2r
    const Tensor& x = tensor_arg(a[0], name, "self");
    const std::vector<int64_t> dim = ints_arg(a[1], name, "dim");
    const int64_t norm = int_arg(a[2], name, "normalization");
    Tensor out = tensor_arg(a[4], name, "out");
    if (kind == '2') {
      const int64_t last = int_arg(a[3], name, "last_dim_size");
      if (!writes_out(kind, x, dim, last, out)) Py_RETURN_NONE;
      static const auto op = handle<FftLenOut>("complexext::fft_c2r_out");
      call_out(op, x, dim, norm, last, out);
    } else {
      const bool flag = bool_arg(a[3], name, kind == 'c' ? "forward" : "onesided");
      const int64_t last = kind == 'r' && flag && !dim.empty() && dim.back() >= 0 &&
                                   dim.back() < x.dim()
                               ? x.size(dim.back()) / 2 + 1
                               : -1;
      if (!writes_out(kind, x, dim, last, out)) Py_RETURN_NONE;
      static const auto c2c = handle<FftFlagOut>("complexext::fft_c2c_out");
      static const auto r2c = handle<FftFlagOut>("complexext::fft_r2c_out");
      call_out(kind == 'c' ? c2c : r2c, x, dim, norm, flag, out);
    }
    return THPVariable_Wrap(out);
  } else if (std::strcmp(name, "fft_c2r") == 0) {
    need(n, 4, name);
    const Tensor& x = tensor_arg(a[0], name, "self");
    const std::vector<int64_t> dim = ints_arg(a[1], name, "dim");
    const int64_t norm = int_arg(a[2], name, "normalization");
    const int64_t last = int_arg(a[3], name, "last_dim_size");
    static const auto c2r = handle<FftC2r>("complexext::fft_c2r");
    y = call(c2r, x, dim, norm, last);
  } else if (std::strcmp(name, "stft") == 0) {
    need(n, 8, name);
    const Tensor& x = tensor_arg(a[0], name, "self");
    const Tensor& w = tensor_arg(a[1], name, "window");
    const std::string mode = str_arg(a[7], name, "pad_mode");
    static const auto op = handle<Stft>("complexext::stft");
    y = call(op, x, w, int_arg(a[2], name, "n_fft"),
             int_arg(a[3], name, "hop_length"), int_arg(a[4], name, "normalization"),
             bool_arg(a[5], name, "onesided"), int_arg(a[6], name, "pad"),
             c10::string_view(mode));
  } else if (std::strcmp(name, "istft") == 0) {
    need(n, 8, name);
    const Tensor& x = tensor_arg(a[0], name, "self");
    const Tensor& w = tensor_arg(a[1], name, "window");
    static const auto op = handle<Istft>("complexext::istft");
    y = call(op, x, w, int_arg(a[2], name, "n_fft"),
             int_arg(a[3], name, "hop_length"), int_arg(a[4], name, "normalization"),
             bool_arg(a[5], name, "onesided"), int_arg(a[6], name, "start"),
             int_arg(a[7], name, "length"));
  } else if (std::strcmp(name, "convolution") == 0) {
    need(n, 9, name);
    const Tensor& x = tensor_arg(a[0], name, "input");
    const Tensor& w = tensor_arg(a[1], name, "weight");
    std::optional<Tensor> b;
    if (a[2] != Py_None) b = tensor_arg(a[2], name, "bias");
    const std::vector<int64_t> stride = ints_arg(a[3], name, "stride");
    const std::vector<int64_t> padding = ints_arg(a[4], name, "padding");
    const std::vector<int64_t> dilation = ints_arg(a[5], name, "dilation");
    const bool transposed = bool_arg(a[6], name, "transposed");
    const std::vector<int64_t> output_padding = ints_arg(a[7], name, "output_padding");
    static const auto op = handle<Conv>("complexext::convolution");
    y = call(op, x, w, b, stride, padding, dilation, transposed, output_padding,
             int_arg(a[8], name, "groups"));
  } else {
    TORCH_CHECK_VALUE(false, "complexext._C.call_below_autograd: no fast entry for op '", name,
                      "'");
  }
  return THPVariable_Wrap(std::move(y));
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"call_below_autograd", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
                                call_below_autograd)),
     METH_FASTCALL,
     "call_below_autograd(op, *args): complexext::<op>(*args) below autograd."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

extern "C" PyObject* PyInit__C(void) {
  static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};
  return PyModule_Create(&def);
}
