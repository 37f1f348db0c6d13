#pragma once
// The state of the GPU-run level loop (device_loop.cu), which the host class reads back.
#include "solvers/bfs/cuda/common.cuh"

namespace tessera::bfs::gpu {

// ---- device-driven searches ------------------------------------------------------------
//
// On one rank, or with peer memory, the GPU runs search.cpp's level loop itself. LevelControl
// holds what the host loop keeps; conclude_level updates it from the level table after each
// level (Beamer's rule, next_bottom_up, decides there) and a search is one CUDA graph: a while
// node around one level, whose switch node takes one of the LevelPath branches (the same
// steps and shares as the host-driven search queues). The two queues are the frontiers of
// even and odd levels, picked by the level in the state.
struct LevelControl {
  long long level;              // the level running (after conclude_level: the next one)
  int bottom_up;                // its direction
  int frontier_is_queue;        // this rank's frontier: its queue, else its words of the bitmap
  int done;                     // the last level found nothing, or a share's wait failed
  int rule;                     // Algorithm: direction_optimizing, top_down or bottom_up
  double alpha, beta;
  long long frontier_vertices, frontier_edges, previous_vertices, unexplored_edges;
  long long queue_size;         // this rank's frontier vertices
  long long top_down_levels, bottom_up_levels;
  ull status;                   // nonzero: a share's wait timed out (1 + the silent rank), or kRunaway
  long long hub_count;          // delegated hubs in the frontier (View::hub_list)
};
// A level's branch, chosen on the device before it starts (level_path): its direction, and
// which of the direction's steps have work. Each branch holds only the kernels it needs: in
// a graph every kernel node costs about 3 us on an H200 even when it returns at once, and
// most levels of a search expand a few vertices in about 20 us. The kernels still test their
// own conditions, so a branch decides what runs, never what is correct.
enum class LevelPath : unsigned {
  bottom_up_from_queue,   // after a top-down level: the queue becomes this rank's words first
  bottom_up,              // after a bottom-up level: the words are the frontier already
  top_down_from_words,    // after a bottom-up level: the words become the queue first
  top_down,               // a queue of more than kSmallFrontier items: scanned by many blocks
  top_down_small,         // a short queue (most levels): scanned by one block
  count
};

constexpr ull kRunaway = ~0ull;  // more levels than vertices: a bug, not a graph

}  // namespace tessera::bfs::gpu
