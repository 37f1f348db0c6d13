// What one level of a device-driven loop costs before it does any work, by the CUDA graph
// construct that repeats it: a while node, a switch node inside it, or a graph that
// tail-launches itself. Each level is one 16-block kernel that does nothing, then a one-block
// kernel that counts the levels down (and sets the loop's condition, or tail-launches).
// Prints microseconds per level, the best of 5 runs of 2000 levels. docs/bfs.md and
// docs/performance.md (thirteenth session) quote it. Build and run on a GPU host:
//   nvcc -O2 -std=c++17 -arch=sm_90 scripts/gpu-host/graph-floor.cu -o graph-floor && ./graph-floor
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    const cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

constexpr int kLevels = 2000;
__device__ int levels_left;
__device__ cudaGraphExec_t self;

__global__ void idle(int* sink) {
  if (threadIdx.x == 1023) *sink = 1;  // never: keeps the kernel from being empty
}
__global__ void start(int levels) { levels_left = levels; }
__global__ void count_down(cudaGraphConditionalHandle loop) {
  if (threadIdx.x == 0) cudaGraphSetConditional(loop, --levels_left > 0 ? 1u : 0u);
}
__global__ void count_down_and_relaunch() {
  if (threadIdx.x == 0 && --levels_left > 0 && cudaGraphLaunch(self, cudaStreamGraphTailLaunch) != cudaSuccess)
    levels_left = -1;
}

cudaStream_t stream;
int* sink;

// Captures what `queue` launches into graph g, after node `after` if there is one.
template <class Queue>
void capture(cudaGraph_t g, Queue queue, const cudaGraphNode_t* after = nullptr) {
  CHECK(cudaStreamBeginCaptureToGraph(stream, g, after, nullptr, after ? 1 : 0, cudaStreamCaptureModeThreadLocal));
  queue();
  CHECK(cudaStreamEndCapture(stream, &g));
}

double per_level(cudaGraphExec_t exec) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int run = 0; run < 5; ++run) {
    start<<<1, 1, 0, stream>>>(kLevels);
    CHECK(cudaEventRecord(a, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaStreamSynchronize(stream));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    best = ms < best ? ms : best;
  }
  int left = 0;
  CHECK(cudaMemcpyFromSymbol(&left, levels_left, sizeof left));
  if (left != 0) std::fprintf(stderr, "graph-floor: %d levels left (a failed launch?)\n", left);
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return best * 1e3 / kLevels;
}

// Adds a conditional node of `type` with `bodies` bodies to g (no dependencies); returns the node
// and its parameters, whose phGraph_out are the bodies.
cudaGraphNodeParams add_conditional(cudaGraph_t g, cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                                    unsigned bodies, cudaGraphNode_t* node) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = bodies;
  CHECK(cudaGraphAddNode(node, g, nullptr, nullptr, 0, &p));
  return p;
}

// A while node around the level; with `switched`, the idle kernel sits in branch 0 (of 6) of
// a switch node, as the BFS branches did before the thirteenth session.
double while_loop(bool idle_kernel, bool switched) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle loop, branch = 0;
  CHECK(cudaGraphConditionalHandleCreate(&loop, g, 1, cudaGraphCondAssignDefault));
  if (switched) CHECK(cudaGraphConditionalHandleCreate(&branch, g, 0, cudaGraphCondAssignDefault));
  cudaGraphNode_t node;
  const cudaGraph_t body = add_conditional(g, loop, cudaGraphCondTypeWhile, 1, &node).conditional.phGraph_out[0];
  if (switched) {
    cudaGraphNode_t sw;
    const cudaGraphNodeParams s = add_conditional(body, branch, cudaGraphCondTypeSwitch, 6, &sw);
    for (unsigned k = 0; k < s.conditional.size; ++k) capture(s.conditional.phGraph_out[k], [] { idle<<<16, 256, 0, stream>>>(sink); });
    capture(body, [&] { count_down<<<1, 256, 0, stream>>>(loop); }, &sw);
  } else {
    capture(body, [&] {
      if (idle_kernel) idle<<<16, 256, 0, stream>>>(sink);
      count_down<<<1, 256, 0, stream>>>(loop);
    });
  }
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  const double us = per_level(exec);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  return us;
}

// A graph for launch from the device that tail-launches itself: the level loop of the BFS.
double tail_launch() {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  capture(g, [] {
    idle<<<16, 256, 0, stream>>>(sink);
    count_down_and_relaunch<<<1, 256, 0, stream>>>();
  });
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiateWithFlags(&exec, g, cudaGraphInstantiateFlagDeviceLaunch));
  CHECK(cudaGraphUpload(exec, stream));
  CHECK(cudaMemcpyToSymbol(self, &exec, sizeof exec));
  const double us = per_level(exec);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  return us;
}

}  // namespace

int main() {
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&sink, sizeof(int)));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("graph-floor on %s: microseconds per level (best of 5 runs of %d levels)\n", p.name, kLevels);
  std::printf("  while node { count-down }                               %6.2f\n", while_loop(false, false));
  std::printf("  while node { idle kernel, count-down }                  %6.2f\n", while_loop(true, false));
  std::printf("  while node { switch node { idle kernel }, count-down }  %6.2f\n", while_loop(true, true));
  std::printf("  tail launch { idle kernel, count-down }                 %6.2f\n", tail_launch());
  CHECK(cudaFree(sink));
  return 0;
}
