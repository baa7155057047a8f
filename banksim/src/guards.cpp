// guards.cpp - what protects the process while student code runs: a watchdog thread for the
// time limit, handlers for crash signals and exit() that report the launch in progress through
// the emergency handler before the process ends.
#include <unistd.h>

#include <chrono>

#include "engine.hpp"

namespace banksim::rt::detail {

// ---- Process-level guards: watchdog, crash signals, exit() -----------------------------------

std::string where_now() {
  char buf[160];
  if (g_launch != nullptr && g_launch->current() != nullptr) {
    const uint3 b = g_launch->current_block();
    const uint3 t = g_launch->current()->tid;
    std::snprintf(buf, sizeof buf, " in block (%u,%u,%u), thread (%u,%u,%u)", b.x, b.y, b.z, t.x,
                  t.y, t.z);
    return buf;
  }
  return "";
}

void emergency_exit(const char* kind, const std::string& message, int code) {
  std::fprintf(stderr, "banksim: %s%s\n", message.c_str(), where_now().c_str());
  std::fflush(stderr);
  if (g_emergency != nullptr) g_emergency(kind, message.c_str(), g_last_pc);
  _exit(code);
}

void on_crash_signal(int sig) {
  if (g_launch == nullptr) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  const char* what = sig == SIGSEGV
                         ? (g_launch->regions()
                                ? "a segmentation fault (SIGSEGV): a bad pointer, or local arrays "
                                  "(its own or a called function's) too large for the stack"
                                : "a segmentation fault (SIGSEGV): a bad pointer, or a local array "
                                  "too large for a fiber's 64 KiB stack")
                     : sig == SIGBUS  ? "a bus error (SIGBUS)"
                     : sig == SIGFPE  ? "an arithmetic exception (SIGFPE): integer division by 0?"
                     : sig == SIGABRT ? "abort() (SIGABRT): a failed assert or trap?"
                                      : "an illegal instruction (SIGILL)";
  emergency_exit("crash", std::string("the kernel crashed with ") + what, 128 + sig);
}

}  // namespace banksim::rt::detail

extern "C" void banksim_stop(const char* what) {
  using namespace banksim::rt::detail;
  if (g_launch == nullptr) {
    std::fprintf(stderr, "banksim: %s\n", what);
    std::fflush(stderr);
    std::abort();
  }
  emergency_exit("crash", std::string("stopped the kernel: ") + what + ";", 128 + SIGABRT);
}

namespace banksim::rt::detail {

void on_exit_during_launch() {
  if (g_launch != nullptr) {
    emergency_exit("crash", "the kernel called exit() during the launch", 3);
  }
}

void install_process_guards() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  static std::vector<char> alt_stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  std::atexit(on_exit_during_launch);
}

Watchdog::Watchdog(double seconds) {
  thread_ = std::thread([this, seconds] {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto limit = std::chrono::duration<double>(seconds);
    if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
    g_abort_requested = true;  // the hooks stop the kernel at its next memory access
    if (cv_.wait_for(lock, std::chrono::seconds(2), [this] { return done_; })) return;
    // No memory access for 2 s: a loop on registers only. Nothing to unwind: stop the process.
    char msg[200];
    std::snprintf(msg, sizeof msg,
                  "timeout: the kernel did not finish within %.1f s and made no memory access "
                  "for 2 s (an infinite loop?)",
                  seconds);
    emergency_exit("timeout", msg, 124);
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace banksim::rt::detail
