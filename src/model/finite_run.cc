#include "model/finite_run.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <vector>

namespace rigplan {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// The run's state between events. Requests are numbered in the order sent: those below done_
// have finished, those from done_ to admitted_ are in flight, from admitted_ to sent_ wait for a
// slot. Progress v_ counts the residences an in-flight request has completed since t = 0 (one
// request's residence is one cycle at the count in flight), steps_ the engine's steps.
class Simulation {
 public:
  Simulation(const FiniteLoad& load, const std::function<ServePoint(int)>& at)
      : load_(load), at_(at) {
    const auto n = static_cast<size_t>(load.requests);
    sent_s_.resize(n);
    joined_s_.resize(n);
    joined_v_.resize(n);
    joined_steps_.resize(n);
    points_.resize(static_cast<size_t>(std::min(load.requests, load.slots)) + 1);
  }

  FiniteRun run();

 private:
  const ServePoint& point(int n);
  double next_send_s() const;
  void send_and_join();
  void advance(double dt, const ServePoint& p);
  void finish_oldest();

  const FiniteLoad& load_;
  const std::function<ServePoint(int)>& at_;
  std::vector<double> sent_s_, joined_s_, joined_v_, joined_steps_;
  std::vector<ServePoint> points_;  // by the count in flight; cycle_s 0: not asked yet
  int sent_ = 0, admitted_ = 0, done_ = 0;
  double t_ = 0, v_ = 0, steps_ = 0, in_flight_s_ = 0;
  double wait_sum_ = 0, ttft_sum_ = 0, tpot_sum_ = 0;
  FiniteRun out_;
};

const ServePoint& Simulation::point(int n) {
  ServePoint& p = points_[static_cast<size_t>(n)];
  if (p.cycle_s <= 0) p = at_(n);
  assert(p.cycle_s > 0 && p.step_s > 0);
  return p;
}

// When the next request is sent: never when all are, or while the senders are all outstanding
// (one is freed by a completion); at once when there is no rate.
double Simulation::next_send_s() const {
  if (sent_ >= load_.requests) return kNever;
  if (load_.senders > 0 && sent_ - done_ >= load_.senders) return kNever;
  return load_.rate > 0 ? sent_ / load_.rate : t_;
}

// Sends what is due and lets the waiting requests join while there are slots; a request's TTFT is
// its wait and the TTFT of the count in flight once every request of this instant has joined.
void Simulation::send_and_join() {
  while (next_send_s() <= t_) {
    sent_s_[static_cast<size_t>(sent_)] = load_.rate > 0 ? sent_ / load_.rate : t_;
    ++sent_;
  }
  out_.last_sent_s = sent_s_[static_cast<size_t>(sent_ - 1)];
  const int first = admitted_;
  while (admitted_ < sent_ && admitted_ - done_ < load_.slots) {
    const auto k = static_cast<size_t>(admitted_++);
    joined_s_[k] = t_;
    joined_v_[k] = v_;
    joined_steps_[k] = steps_;
    wait_sum_ += t_ - sent_s_[k];
  }
  const int in_flight = admitted_ - done_;
  if (admitted_ > first) {
    ttft_sum_ += (admitted_ - first) * point(in_flight).ttft_s;
    for (int k = first; k < admitted_; ++k) ttft_sum_ += t_ - sent_s_[static_cast<size_t>(k)];
  }
  out_.most_in_flight = std::max(out_.most_in_flight, in_flight);
  out_.most_waiting = std::max(out_.most_waiting, sent_ - admitted_);
}

void Simulation::advance(double dt, const ServePoint& p) {
  t_ += dt;
  v_ += dt / p.cycle_s;
  steps_ += dt / p.step_s;
  in_flight_s_ += (admitted_ - done_) * dt;
}

void Simulation::finish_oldest() {
  const auto k = static_cast<size_t>(done_++);
  v_ = joined_v_[k] + 1;  // exactly one residence, whatever the rounding of the steps before
  tpot_sum_ += (t_ - joined_s_[k]) / (steps_ - joined_steps_[k]);
}

FiniteRun Simulation::run() {
  while (done_ < load_.requests) {
    send_and_join();
    const int n = admitted_ - done_;
    const double send_s = next_send_s();
    if (n == 0) {  // idle until the next send (only a rate leaves the engine idle)
      assert(send_s < kNever);
      t_ = send_s;
      continue;
    }
    const ServePoint& p = point(n);
    const double finish_dt = (joined_v_[static_cast<size_t>(done_)] + 1 - v_) * p.cycle_s;
    if (send_s - t_ < finish_dt) {
      advance(send_s - t_, p);
      t_ = send_s;  // exactly the send time, whatever the rounding
    } else {
      advance(std::max(0.0, finish_dt), p);
      finish_oldest();
    }
  }
  const double n = load_.requests;
  out_.drained_s = t_;
  out_.mean_in_flight = t_ > 0 ? in_flight_s_ / t_ : 0;
  out_.wait_s = wait_sum_ / n;
  out_.ttft_s = ttft_sum_ / n;
  out_.tpot_s = tpot_sum_ / n;
  return out_;
}

}  // namespace

FiniteRun simulate_finite_run(const FiniteLoad& load, const std::function<ServePoint(int)>& at) {
  assert(load.requests >= 1 && load.slots >= 1 && load.rate >= 0 && load.senders >= 0);
  return Simulation(load, at).run();
}

}  // namespace rigplan
