// A serving benchmark that sends a fixed number of requests and times the run from the first send
// to the last completion (docs/inference.md, "Finite runs"): TensorRT-LLM's online table sends 500
// requests at each rate, vLLM's `bench serve` its --num-prompts. Such a run ramps up from an idle
// engine, may queue where the rate exceeds what the engine serves, and drains at the end; its
// throughput is the output tokens over that whole time, so a rate the engine cannot keep up with
// forever still gives a finite answer.
//
// The run is simulated over the steady states of continuous batching: with n in flight, each
// request in flight advances by 1/cycle(n) of its residence per second (each of n finishes one
// request per cycle, so a request stays one cycle at a steady n). Requests join in the order
// sent and so finish in that order; the simulation steps from event to event (a send, a join, a
// completion), at most two per request, and asks for the steady state of each in-flight count
// once.
#pragma once

#include <functional>

namespace rigplan {

// How a finite run sends its requests to one replica of the engine.
struct FiniteLoad {
  int requests = 1;
  // Requests per second, sent evenly spaced from t = 0 (the k-th at k / rate: a Poisson
  // stream's mean times); 0: all at t = 0, as far as `senders` lets them.
  double rate = 0;
  int senders = 0;  // the most the client keeps outstanding (a fixed concurrency); 0: no cap
  int slots = 1;    // the most the engine holds in flight (the KV cache, max-seqs)
};

// The steady state of continuous batching with n in flight: the time in which each of them
// finishes one request, the mean step (the time per output token) and a prompt's TTFT.
struct ServePoint {
  double cycle_s = 0;
  double step_s = 0;
  double ttft_s = 0;
};

struct FiniteRun {
  double last_sent_s = 0;     // the last request's send
  double drained_s = 0;       // the last completion: the run's wall time
  double mean_in_flight = 0;  // over the run's time
  int most_in_flight = 0;
  int most_waiting = 0;  // sent and waiting for a slot, at once
  // Means over the requests: the wait from its send to its slot; its TTFT, the wait and the TTFT
  // of the in-flight count it joins; its TPOT, its time in flight over the steps in it.
  double wait_s = 0;
  double ttft_s = 0;
  double tpot_s = 0;
};

// The run of `load`, with `at(n)` the steady state of n in flight (1 <= n <= load.slots).
FiniteRun simulate_finite_run(const FiniteLoad& load, const std::function<ServePoint(int)>& at);

}  // namespace rigplan
