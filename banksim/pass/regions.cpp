// regions.cpp - an LLVM pass plugin that lets banksim run a kernel without a fiber per CUDA
// thread: a kernel whose stops (__syncthreads(), __syncthreads_count/and/or, __syncwarp, the
// shuffles, votes, reductions and matches, all of which wait for other threads) are all in the
// kernel itself, none in a function it calls, is cut at its stops into regions, and every
// thread runs from one stop to the next per call (a stop in a loop is met once per iteration,
// each time a return). The scheduler then calls the kernel once per thread and stop met (the
// same order the fibers ran in) instead of switching 1024 stacks.
// Over 600 lines on purpose: one pass, whose steps (find the stops, cut the regions, tick the
// loop epochs) read and rewrite the same kernel and must agree on it.
//
// What the pass does to such a kernel, after clang's pipeline and AddressSanitizer (so that the
// frame's loads and stores are not traced as memory accesses):
//   - every stop's call ends its block: the thread stores the next region's number in its frame
//     and returns (the hook has recorded the arrival, as with fibers); a stop's result (a
//     shuffled value, a ballot) is read from banksim_current_result where the next region starts;
//   - a new entry block reads the thread's frame (banksim_current_frame, set by the runtime) and
//     jumps to the region the frame names (0: the kernel's start);
//   - values used across a barrier, and every local variable (alloca), live in the frame.
// Before that, in every function, each loop whose code may access shared memory (an access
// hook on an address not shown local or global, a call that may make one) keeps
// banksim_loop_epoch, a hash of the iterations a thread is in: its header mixes
// the loop's number into it, its exits put back the value from before the loop. Lanes of a warp
// in the same iteration then share an epoch, which is how the runtime groups the accesses of
// lanes that diverged into what the hardware issues together (one request per iteration).
// A table, __banksim_region_kernels, names each kernel cut this way, its frame's size and whether
// a thread may stop inside a loop that keeps an epoch; the runtime runs the others with fibers. The
// pass knows nothing of banks or grading.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace {

constexpr const char* kBarrier = "banksim_syncthreads";
constexpr const char* kFrameVar = "banksim_current_frame";
constexpr const char* kResultVar = "banksim_current_result";
constexpr const char* kTable = "__banksim_region_kernels";
constexpr const char* kDoneAttr = "banksim-regions";
constexpr const char* kEpochVar = "banksim_loop_epoch";
constexpr const char* kEpochAttr = "banksim-loop-epochs";
constexpr unsigned kFrameHeader = 16;  // the region number (i32), padded
constexpr unsigned kMaxAlign = 64;     // the runtime aligns frames to 64 bytes
// Locals beyond this stay on a fiber's 64 KiB stack, whose overflow banksim reports.
constexpr std::uint64_t kMaxLocals = std::uint64_t{48} * 1024;

// Runtime functions that suspend a thread until others arrive (besides the plain barrier).
bool suspends_by_name(StringRef name) {
  return name == "banksim_syncthreads_count" || name == "banksim_syncwarp" ||
         name == "banksim_warp_exchange";
}

// Whether calling f may suspend the thread: a barrier or warp function, directly or through
// functions of the module; a call through a pointer counts as one that may.
class SuspendAnalysis {
 public:
  bool may_suspend(const Function* f) {
    if (f == nullptr) return true;
    if (f->isIntrinsic()) return false;
    if (f->isDeclaration()) return f->getName() == kBarrier || suspends_by_name(f->getName());
    auto it = memo_.find(f);
    if (it != memo_.end()) return it->second;
    memo_[f] = true;  // recursion: assume it may, until shown otherwise
    bool result = false;
    for (const Instruction& i : instructions(*f)) {
      const auto* call = dyn_cast<CallBase>(&i);
      if (call == nullptr || call->isInlineAsm()) continue;
      if (may_suspend(call->getCalledFunction())) {
        result = true;
        break;
      }
    }
    memo_[f] = result;
    return result;
  }

 private:
  DenseMap<const Function*, bool> memo_;
};

bool is_called_directly(const Function& f) {
  for (const Use& u : f.uses()) {
    if (const auto* call = dyn_cast<CallBase>(u.getUser())) {
      if (call->isCallee(&u)) return true;
    }
  }
  return false;
}

// The barrier calls of a kernel that can run as regions (none: it runs as one region, called
// once per thread, unchanged); nullopt when it cannot.
std::optional<std::vector<CallInst*>> barriers_of(Function& f, SuspendAnalysis& analysis) {
  std::vector<CallInst*> barriers;
  if (f.isDeclaration() || f.hasFnAttribute(kDoneAttr) || !f.getReturnType()->isVoidTy() ||
      f.isVarArg() || is_called_directly(f)) {
    return std::nullopt;
  }
  std::uint64_t locals = 0;
  const DataLayout& dl = f.getParent()->getDataLayout();
  for (BasicBlock& bb : f) {
    for (Instruction& i : bb) {
      if (i.isEHPad() || isa<InvokeInst>(i) || isa<CallBrInst>(i)) return std::nullopt;
      if (auto* alloca = dyn_cast<AllocaInst>(&i)) {
        if (&bb != &f.getEntryBlock() || !isa<ConstantInt>(alloca->getArraySize()) ||
            alloca->getAlign().value() > kMaxAlign) {
          return std::nullopt;
        }
        locals += dl.getTypeAllocSize(alloca->getAllocatedType()).getFixedSize() *
                  cast<ConstantInt>(alloca->getArraySize())->getZExtValue();
        if (locals > kMaxLocals) return std::nullopt;
        continue;
      }
      auto* call = dyn_cast<CallInst>(&i);
      if (call == nullptr || call->isInlineAsm()) continue;
      if (call->canReturnTwice() || call->isMustTailCall()) return std::nullopt;
      const Function* callee = call->getCalledFunction();
      if (callee != nullptr && callee->isIntrinsic()) {
        switch (callee->getIntrinsicID()) {
          case Intrinsic::stacksave:
          case Intrinsic::stackrestore:
          case Intrinsic::localescape:
            return std::nullopt;
          default:
            continue;
        }
      }
      if (callee != nullptr &&
          (callee->getName() == kBarrier || suspends_by_name(callee->getName()))) {
        barriers.push_back(call);  // a stop: the thread returns there
        continue;
      }
      if (analysis.may_suspend(callee)) return std::nullopt;
    }
  }
  return barriers;
}

// Cuts f at its barriers; returns the frame's size.
std::uint64_t cut(Function& f, const std::vector<CallInst*>& barriers) {
  Module& m = *f.getParent();
  LLVMContext& cx = m.getContext();
  const DataLayout& dl = m.getDataLayout();
  Type* i8p = Type::getInt8PtrTy(cx);
  Type* i32 = Type::getInt32Ty(cx);

  // The lifetime markers of locals that move to the frame mean nothing there.
  std::vector<Instruction*> markers;
  for (Instruction& i : instructions(f)) {
    if (auto* ii = dyn_cast<IntrinsicInst>(&i)) {
      if (ii->getIntrinsicID() == Intrinsic::lifetime_start ||
          ii->getIntrinsicID() == Intrinsic::lifetime_end) {
        markers.push_back(ii);
      }
    }
  }
  for (Instruction* i : markers) i->eraseFromParent();

  // Each region starts after a barrier. Its first instructions without a source location
  // (clang hoists some loads without one) took the barrier's line from the code before them;
  // they keep it (the reports' lines, and nvcc's widths per line, depend on it).
  std::vector<BasicBlock*> starts;
  for (CallInst* b : barriers) {
    BasicBlock* start =
        b->getParent()->splitBasicBlock(std::next(b->getIterator()), "banksim.region");
    for (Instruction& i : *start) {
      if (isa<DbgInfoIntrinsic>(i)) continue;
      if (i.getDebugLoc()) break;
      i.setDebugLoc(b->getDebugLoc());
    }
    starts.push_back(start);
  }

  // A warp function's or __syncthreads_count's result is known only once the others have
  // arrived: the runtime hands it over in banksim_current_result as the thread goes on.
  GlobalVariable* result = nullptr;
  for (std::size_t k = 0; k < barriers.size(); ++k) {
    CallInst* call = barriers[k];
    if (call->getType()->isVoidTy() || call->use_empty()) continue;
    if (result == nullptr) {
      result = cast<GlobalVariable>(m.getOrInsertGlobal(kResultVar, Type::getInt64Ty(cx)));
    }
    IRBuilder<> r(&*starts[k]->getFirstInsertionPt());
    r.SetCurrentDebugLocation(call->getDebugLoc());
    Value* got = r.CreateLoad(Type::getInt64Ty(cx), result, "banksim.result");
    if (call->getType() != got->getType()) got = r.CreateTruncOrBitCast(got, call->getType());
    call->replaceAllUsesWith(got);
  }

  // The new entry: the thread's frame, its region number, a jump to that region.
  BasicBlock* old_entry = &f.getEntryBlock();
  BasicBlock* entry = BasicBlock::Create(cx, "banksim.entry", &f, old_entry);
  IRBuilder<> b(entry);
  auto* current = cast<GlobalVariable>(m.getOrInsertGlobal(kFrameVar, i8p));
  Instruction* frame = b.CreateLoad(i8p, current, "banksim.frame");
  Value* index = b.CreateLoad(i32, b.CreateBitCast(frame, i32->getPointerTo()), "banksim.index");
  SwitchInst* jump = b.CreateSwitch(index, old_entry, static_cast<unsigned>(starts.size()));
  for (std::size_t k = 0; k < starts.size(); ++k) {
    jump->addCase(ConstantInt::get(cast<IntegerType>(i32), k + 1), starts[k]);
  }

  // A thread that returns starts the next block at region 0 (the runtime zeroes new frames).
  std::vector<ReturnInst*> returns;
  for (BasicBlock& bb : f) {
    if (auto* ret = dyn_cast<ReturnInst>(bb.getTerminator())) returns.push_back(ret);
  }
  for (ReturnInst* ret : returns) {
    IRBuilder<> e(ret);
    e.CreateStore(ConstantInt::get(i32, 0), e.CreateBitCast(frame, i32->getPointerTo()));
  }

  // A barrier's block now ends the thread's call: it notes where to go on.
  for (std::size_t k = 0; k < barriers.size(); ++k) {
    BasicBlock* bb = barriers[k]->getParent();
    Instruction* br = bb->getTerminator();
    IRBuilder<> e(br);
    e.CreateStore(ConstantInt::get(i32, k + 1), e.CreateBitCast(frame, i32->getPointerTo()));
    e.CreateRetVoid();
    br->eraseFromParent();
  }

  // Values whose definition no longer dominates a use (they cross a barrier) go through a slot:
  // stored where they are defined, loaded once at the start of a region that dominates the use
  // (not in a loop of the region: reg2mem's load at every use made a stride loop 8% slower), or
  // just before the use where no region start dominates it (a join after divergent barriers).
  DominatorTree dt(f);
  // The blocks each region can run (from its start to the barriers or returns that end it).
  std::vector<SmallPtrSet<BasicBlock*, 32>> reach(starts.size());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    SmallVector<BasicBlock*, 32> work{starts[k]};
    while (!work.empty()) {
      BasicBlock* b = work.pop_back_val();
      if (!reach[k].insert(b).second) continue;
      for (BasicBlock* s : successors(b)) work.push_back(s);
    }
  }
  std::vector<Instruction*> crossing;
  for (BasicBlock& bb : f) {
    if (&bb == entry) continue;
    for (Instruction& i : bb) {
      if (isa<AllocaInst>(i)) continue;
      for (const Use& u : i.uses()) {
        if (!dt.dominates(&i, u)) {
          crossing.push_back(&i);
          break;
        }
      }
    }
  }
  for (Instruction* i : crossing) {
    auto* slot = new AllocaInst(i->getType(), 0, i->getName() + ".slot", frame);
    Instruction* after = i->getParent()->getFirstNonPHI();
    if (!isa<PHINode>(i)) after = i->getNextNode();
    IRBuilder<>(after).CreateStore(i, slot);
    std::vector<Use*> far;
    for (Use& u : i->uses()) {
      if (!isa<StoreInst>(u.getUser()) || u.getUser()->getOperand(1) != slot) {
        if (!dt.dominates(i, u)) far.push_back(&u);
      }
    }
    DenseMap<BasicBlock*, Instruction*> loaded;  // per region start
    for (Use* u : far) {
      auto* user = cast<Instruction>(u->getUser());
      BasicBlock* where = user->getParent();
      Instruction* before = user;
      if (auto* phi = dyn_cast<PHINode>(user)) {
        where = phi->getIncomingBlock(*u);
        before = where->getTerminator();
      }
      // A region start that dominates the use, where the value cannot be defined again (a
      // barrier in a loop: the definition might run after the start, in the same region).
      BasicBlock* start = nullptr;
      for (std::size_t k = 0; k < starts.size(); ++k) {
        if (dt.dominates(starts[k], where) && reach[k].count(i->getParent()) == 0) {
          start = starts[k];
          break;
        }
      }
      Instruction* value = nullptr;
      if (start != nullptr) {
        Instruction*& l = loaded[start];
        if (l == nullptr) {
          l = new LoadInst(i->getType(), slot, i->getName() + ".reload",
                           &*start->getFirstInsertionPt());
        }
        value = l;
      } else {
        value = new LoadInst(i->getType(), slot, i->getName() + ".reload", before);
      }
      u->set(value);
    }
  }

  // Every local, the demoted values included, gets a slot of the frame.
  std::vector<AllocaInst*> allocas;
  for (Instruction& i : instructions(f)) {
    if (auto* a = dyn_cast<AllocaInst>(&i)) allocas.push_back(a);
  }
  std::uint64_t offset = kFrameHeader;
  IRBuilder<> s(jump);
  for (AllocaInst* a : allocas) {
    const std::uint64_t count = cast<ConstantInt>(a->getArraySize())->getZExtValue();
    const std::uint64_t bytes = dl.getTypeAllocSize(a->getAllocatedType()).getFixedSize() * count;
    offset = alignTo(offset, a->getAlign().value());
    Value* slot = s.CreateConstInBoundsGEP1_64(Type::getInt8Ty(cx), frame, offset);
    Value* typed = s.CreateBitCast(slot, a->getType());
    typed->takeName(a);
    a->replaceAllUsesWith(typed);
    a->eraseFromParent();
    offset += bytes;
  }
  f.addFnAttr(kDoneAttr);
  return alignTo(offset, kFrameHeader);
}

// Reads of blockDim and gridDim (banksim's variables; threadIdx and blockIdx are read by inline
// asm) are not memory accesses on the GPU (special registers), and the tracer's hook returns at
// once for them (abi.cpp's on_typed): their hook calls are dropped, a call less per read.
void drop_builtin_checks(Module& m) {
  std::vector<CallInst*> drop;
  for (Function& f : m) {
    for (Instruction& i : instructions(f)) {
      auto* call = dyn_cast<CallInst>(&i);
      const Function* callee = call == nullptr ? nullptr : call->getCalledFunction();
      if (callee == nullptr || !callee->getName().startswith("__asan_load") ||
          call->arg_size() == 0) {
        continue;
      }
      Value* address = call->getArgOperand(0);
      if (auto* ce = dyn_cast<ConstantExpr>(address); ce != nullptr && ce->isCast()) {
        address = ce->getOperand(0);
      }
      const auto* g = dyn_cast<GlobalVariable>(address->stripPointerCasts());
      if (g == nullptr) {
        // A field of one: getelementptr (blockDim, 0, k).
        if (auto* gep = dyn_cast<GEPOperator>(address)) {
          g = dyn_cast<GlobalVariable>(gep->getPointerOperand()->stripPointerCasts());
        }
      }
      if (g != nullptr && g->isDeclaration() && g->hasExternalLinkage() &&
          (g->getName() == "blockDim" || g->getName() == "gridDim" || g->getName() == "threadIdx" ||
           g->getName() == "blockIdx")) {
        drop.push_back(call);
      }
    }
  }
  for (CallInst* call : drop) call->eraseFromParent();
}

// Whether code may access shared memory, the only thing a loop epoch is read by: the runtime
// tags each traced shared access with it (trace.hpp), and nothing else (barriers, warp
// functions, global accesses, branches) reads it. A loop none of whose code (callees included)
// may touch shared memory therefore needs no epoch: its exits would put back the value from
// before it anyway, so its ticks could never be seen. Conservative: what is not shown local,
// global or unaccessed counts as shared.
class SharedAnalysis {
 public:
  bool may_touch_shared(const Loop& loop) {
    for (const BasicBlock* bb : loop.blocks()) {
      for (const Instruction& i : *bb) {
        if (const auto* call = dyn_cast<CallBase>(&i); call != nullptr && may_touch(*call)) {
          return true;
        }
      }
    }
    return false;
  }

 private:
  // A pointer (or AddressSanitizer's integer address) that cannot point into shared memory: a
  // local (alloca), a variable outside the banksim_shared section, or a parameter of a function
  // nothing calls directly (a kernel: its pointers come from the host, device memory).
  static bool surely_not_shared(const Value* address) {
    if (const auto* cast = dyn_cast<PtrToIntOperator>(address)) address = cast->getOperand(0);
    if (!address->getType()->isPointerTy()) return false;
    SmallVector<const Value*, 4> bases;  // through phis and selects (a pointer stepped in a loop)
    getUnderlyingObjects(address, bases, nullptr, 0);
    for (const Value* base : bases) {
      if (isa<AllocaInst>(base)) continue;
      if (const auto* g = dyn_cast<GlobalVariable>(base);
          g != nullptr && !g->isDeclaration() && g->getSection() != "banksim_shared") {
        continue;
      }
      if (const auto* arg = dyn_cast<Argument>(base);
          arg != nullptr && !is_called_directly(*arg->getParent())) {
        continue;
      }
      return false;
    }
    return !bases.empty();
  }

  // Whether the pointer arguments of a call to a runtime function that traces them may be shared.
  static bool any_maybe_shared(const CallBase& call, std::initializer_list<unsigned> args) {
    for (unsigned a : args) {
      if (a < call.arg_size() && !surely_not_shared(call.getArgOperand(a))) return true;
    }
    return false;
  }

  bool may_touch(const CallBase& call) {
    if (call.isInlineAsm()) return false;  // banksim's inline asm reads threadIdx/blockIdx
    const Function* callee = call.getCalledFunction();
    if (callee == nullptr) return true;  // through a pointer: anything
    if (const auto* mem = dyn_cast<AnyMemIntrinsic>(&call)) {
      if (const auto* transfer = dyn_cast<AnyMemTransferInst>(mem)) {
        if (!surely_not_shared(transfer->getRawSource())) return true;
      }
      return !surely_not_shared(mem->getRawDest());
    }
    if (callee->isIntrinsic()) return false;
    const StringRef name = callee->getName();
    if (callee->isDeclaration()) {
      // The hooks that trace an access (abi.cpp), by the operands that are addresses.
      if (name.startswith("__asan_load") || name.startswith("__asan_store") ||
          name == "banksim_atomic_i32" || name == "banksim_atomic_u32" ||
          name == "banksim_atomic_u64" || name == "banksim_atomic_f32" ||
          name == "banksim_atomic_f64") {
        return any_maybe_shared(call, {name.startswith("banksim_atomic") ? 1U : 0U});
      }
      if (name == "__asan_memcpy" || name == "__asan_memmove" || name == "banksim_bulk_copy") {
        return any_maybe_shared(call, {0, 1});
      }
      if (name == "__asan_memset") return any_maybe_shared(call, {0});
      // Runtime functions that trace no memory access, and what declares it reads no memory.
      if (name.startswith("__asan_report") || name == kBarrier || suspends_by_name(name) ||
          name == "__asan_handle_no_return" || callee->doesNotAccessMemory()) {
        return false;
      }
      return true;  // unknown: it may trace shared accesses
    }
    auto it = memo_.find(callee);
    if (it != memo_.end()) return it->second;
    memo_[callee] = true;  // recursion: assume it may, until shown otherwise
    bool result = false;
    for (const Instruction& i : instructions(*callee)) {
      if (const auto* c = dyn_cast<CallBase>(&i); c != nullptr && may_touch(*c)) {
        result = true;
        break;
      }
    }
    memo_[callee] = result;
    return result;
  }

  DenseMap<const Function*, bool> memo_;
};

// Whether a loop calls one of the stops a kernel is cut at.
bool stops_in(const Loop& loop) {
  for (const BasicBlock* bb : loop.blocks()) {
    for (const Instruction& i : *bb) {
      const auto* call = dyn_cast<CallInst>(&i);
      const Function* callee = call == nullptr ? nullptr : call->getCalledFunction();
      if (callee != nullptr &&
          (callee->getName() == kBarrier || suspends_by_name(callee->getName()))) {
        return true;
      }
    }
  }
  return false;
}

// The loop epochs of one function (see the file's header). Returns whether a loop that keeps
// one has a stop in it: only then can a thread of a kernel cut into regions return to the
// runtime with its epoch changed (a loop's exits put back the value from before it), and only
// then must the runtime save and restore the epoch per thread (the table's third field).
bool mark_loop_epochs(Function& f, GlobalVariable* epoch, SharedAnalysis& shared) {
  if (f.isDeclaration() || f.hasFnAttribute(kEpochAttr)) return false;
  f.addFnAttr(kEpochAttr);
  DominatorTree dt(f);
  LoopInfo loops(dt);
  if (loops.empty()) return false;
  bool stops_in_epochs = false;
  Type* i32 = Type::getInt32Ty(f.getContext());
  const auto salt_base = static_cast<std::uint32_t>(std::hash<std::string>{}(f.getName().str()));
  std::uint32_t number = 0;
  // Outer loops first: an edge that leaves an inner and an outer loop at once is split for the
  // outer one first, so that the inner one's restore runs before the outer one's.
  for (Loop* loop : loops.getLoopsInPreorder()) {
    ++number;
    if (!shared.may_touch_shared(*loop)) continue;  // its epoch could never be read
    BasicBlock* header = loop->getHeader();
    SmallVector<BasicBlock*, 4> entering;
    for (BasicBlock* pred : predecessors(header)) {
      if (!loop->contains(pred)) entering.push_back(pred);
    }
    SmallVector<std::pair<BasicBlock*, BasicBlock*>, 4> exits;
    loop->getExitEdges(exits);
    bool plain = !entering.empty();  // edges banksim can put code on
    for (BasicBlock* bb : entering) plain &= isa<BranchInst>(bb->getTerminator());
    for (auto& [from, to] : exits) {
      plain &= (isa<BranchInst>(from->getTerminator()) || isa<SwitchInst>(from->getTerminator())) &&
               !to->isEHPad();
    }
    if (!plain) continue;  // the loop's accesses pair by count, as without the pass
    stops_in_epochs |= stops_in(*loop);
    IRBuilder<> at_entry(&*f.getEntryBlock().getFirstInsertionPt());
    AllocaInst* before = at_entry.CreateAlloca(i32, nullptr, "banksim.epoch.before");
    for (BasicBlock* bb : entering) {
      IRBuilder<> b(bb->getTerminator());
      b.CreateStore(b.CreateLoad(i32, epoch), before);
    }
    // epoch = ((epoch + salt) * golden) ^ (... >> 16): each passage of the header a new value.
    IRBuilder<> b(&*header->getFirstInsertionPt());
    Value* e = b.CreateAdd(b.CreateLoad(i32, epoch), b.getInt32(salt_base + number * 0x51ed27U));
    e = b.CreateMul(e, b.getInt32(0x9E3779B1U));
    e = b.CreateXor(e, b.CreateLShr(e, 16));
    b.CreateStore(e, epoch);
    for (auto& [from, to] : exits) {
      BasicBlock* mid = SplitEdge(from, to);
      IRBuilder<> r(mid->getTerminator());
      r.CreateStore(r.CreateLoad(i32, before), epoch);
    }
  }
  return stops_in_epochs;
}

struct RegionsPass : PassInfoMixin<RegionsPass> {
  // NOLINTNEXTLINE(readability-convert-member-functions-to-static): LLVM's pass interface
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& /*analyses*/) {
    // The table and the frame variable are banksim's: a file that declared either could make the
    // runtime run a kernel as regions that was not cut, or reach other threads' frames.
    for (const char* name : {kTable, kFrameVar, kResultVar, kEpochVar}) {
      if (m.getNamedValue(name) != nullptr) {
        report_fatal_error(Twine("banksim: the file declares ") + name +
                           ", a name banksim reserves; rename it");
      }
    }
    // AddressSanitizer's callbacks stay direct calls to PLT stubs: calling them through the GOT
    // (nonlazybind, as -fno-plt does for the file's own declarations) was slower once the hooks
    // had no calls of their own (2026-12-02, an A/B: stride loop 102 -> 110 M/s without it).
    drop_builtin_checks(m);
    auto* epoch =
        cast<GlobalVariable>(m.getOrInsertGlobal(kEpochVar, Type::getInt32Ty(m.getContext())));
    SharedAnalysis shared;
    SmallPtrSet<const Function*, 16> stops_in_epochs;
    for (Function& f : m) {
      if (mark_loop_epochs(f, epoch, shared)) stops_in_epochs.insert(&f);
    }
    // The module asked for fibers only (banksim's --fibers): loop epochs, no kernel cut.
    const bool cut_none = m.getNamedValue("banksim_fibers_only") != nullptr;
    SuspendAnalysis analysis;
    std::vector<std::pair<Function*, std::vector<CallInst*>>> kernels;
    std::vector<Function*> uncut;  // no stop at all: one region, the function as it is
    for (Function& f : m) {
      if (cut_none) break;
      std::optional<std::vector<CallInst*>> barriers = barriers_of(f, analysis);
      if (!barriers) continue;
      if (barriers->empty()) {
        uncut.push_back(&f);
      } else {
        kernels.emplace_back(&f, std::move(*barriers));
      }
    }
    LLVMContext& cx = m.getContext();
    Type* i8p = Type::getInt8PtrTy(cx);
    Type* i64 = Type::getInt64Ty(cx);
    // An entry: the function, its frame's size, whether a thread may return at a stop with its
    // loop epoch changed (1: the runtime saves and restores it per thread) or not (0).
    StructType* entry_type = StructType::get(cx, {i8p, i64, i64});
    std::vector<Constant*> entries;
    const auto add = [&](Function* f, std::uint64_t size, bool keep_epoch) {
      entries.push_back(ConstantStruct::get(
          entry_type, {ConstantExpr::getBitCast(f, i8p), ConstantInt::get(i64, size),
                       ConstantInt::get(i64, keep_epoch ? 1 : 0)}));
    };
    for (auto& [f, barriers] : kernels) add(f, cut(*f, barriers), stops_in_epochs.count(f) != 0);
    // Frame size 0: the function neither reads nor needs a frame; each call runs a thread to its
    // end.
    for (Function* f : uncut) add(f, 0, false);  // no stop: it returns only at its end
    // The table ends with a null function (so that it is never empty).
    entries.push_back(
        ConstantStruct::get(entry_type, {ConstantPointerNull::get(cast<PointerType>(i8p)),
                                         ConstantInt::get(i64, 0), ConstantInt::get(i64, 0)}));
    ArrayType* table_type = ArrayType::get(entry_type, entries.size());
    auto* table = cast<GlobalVariable>(m.getOrInsertGlobal(kTable, table_type));
    table->setConstant(true);
    table->setLinkage(GlobalValue::ExternalLinkage);
    table->setInitializer(ConstantArray::get(table_type, entries));
    return PreservedAnalyses::none();  // loop epochs change any function with a loop
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "banksim-regions", "1", [](PassBuilder& pb) {
            // After AddressSanitizer, whose optimizer-last callback clang registers after the
            // plugins': registered from the pipeline's start, this one comes after it.
            pb.registerPipelineStartEPCallback([&pb](ModulePassManager&, OptimizationLevel) {
              static bool registered = false;
              if (registered) return;
              registered = true;
              pb.registerOptimizerLastEPCallback(
                  [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(RegionsPass()); });
            });
            // `opt -passes=banksim-regions`, for tests.
            pb.registerPipelineParsingCallback(
                [](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name != "banksim-regions") return false;
                  mpm.addPass(RegionsPass());
                  return true;
                });
          }};
}
