#pragma once
// The state of the GPU-run level loop (device_loop.cu), which the host class reads back.
#include "solvers/bfs/cuda/common.cuh"

namespace tessera::bfs::gpu {

// ---- device-driven searches ------------------------------------------------------------
//
// On one rank, or with peer memory, the GPU runs search.cpp's level loop itself. LevelControl
// holds what the host loop keeps; conclude_level updates it from the level table after each
// level (Beamer's rule, next_bottom_up, decides there). Each LevelPath branch is a graph of its
// own, instantiated for launch from the device: the branch's steps and shares (the same as the
// host-driven search queues), the level's last share and conclude_level, which tail-launches
// the next level's branch unless the search is done. A search is the chain of its levels'
// graphs; the stream sees it end when the last one does. The two queues are the frontiers of
// even and odd levels, picked by the level in the state.
struct LevelControl {
  long long level;              // the level running (after conclude_level: the next one)
  int bottom_up;                // its direction
  int frontier_is_queue;        // this rank's frontier: its queue, else its words of the bitmap
  int done;                     // the last level found nothing, a share's wait failed or a launch did
  int launch_error;             // a cudaError_t: the next level's graph could not be launched
  int rule;                     // Algorithm: direction_optimizing, top_down or bottom_up
  double alpha, beta;
  long long frontier_vertices, frontier_edges, previous_vertices, unexplored_edges;
  long long queue_size;         // this rank's frontier vertices
  long long top_down_levels, bottom_up_levels;
  ull status;                   // nonzero: a share's wait timed out (1 + the silent rank), or kRunaway
  long long hub_count;          // delegated hubs in the frontier (View::hub_list)
};
// A level's branch, chosen on the device before it starts (route_level): its direction, and
// which of the direction's steps have work. Each branch holds only the kernels it needs: most
// levels of a search expand a few vertices, and there a kernel that returns at once still
// costs its launch. The kernels test their own conditions too, so a branch decides what runs,
// not what is correct; only the tiny frontier's kernel relies on the route's test (it scans at
// most kBlock items). A level started by a tail launch costs about 5 us before it does any
// work on an H200; a while node around a switch node over the same branches cost 10 (docs/bfs.md).
enum class LevelPath : unsigned {
  bottom_up_from_queue,   // after a top-down level: the queue becomes this rank's words first
  bottom_up,              // after a bottom-up level: the words are the frontier already
  top_down_from_words,    // after a bottom-up level: the words become the queue first
  top_down,               // a queue of more than kSmallFrontier items: scanned by many blocks
  top_down_small,         // a short queue: scanned by one block
  top_down_tiny,          // at most kBlock items and kTinyBlocks tiles of edges (most levels):
                          // one kernel of kTinyBlocks blocks, each scanning the items itself
  count
};

constexpr int kTinyBlocks = 16;  // LevelPath::top_down_tiny's grid, and its limit in tiles
// The most static shared memory the tiny branch's kernel declares (its scan); the rank limit
// (CudaEngine) keeps the top-down staging below 48 KiB beside it.
constexpr std::size_t kTinySharedBytes = 8 * 1024;

constexpr ull kRunaway = ~0ull;  // more levels than vertices: a bug, not a graph

}  // namespace tessera::bfs::gpu
