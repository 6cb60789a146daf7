#include "training_harness/sgd.hpp"

#include <stdexcept>

namespace ringlab::training {

void Sgd::step(const std::vector<Parameter*>& parameters) {
  if (velocity_.empty())
    for (const Parameter* parameter : parameters) velocity_.emplace_back(parameter->value.size(), 0.0f);
  if (velocity_.size() != parameters.size()) throw std::logic_error("Sgd::step: the parameter list changed");
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    Parameter& parameter = *parameters[p];
    std::vector<float>& velocity = velocity_[p];
    for (std::size_t i = 0; i < parameter.value.size(); ++i) {
      const float gradient = parameter.grad[i] + options_.weight_decay * parameter.value[i];
      velocity[i] = options_.momentum * velocity[i] + gradient;
      parameter.value[i] -= options_.learning_rate * velocity[i];
    }
  }
}

}  // namespace ringlab::training
