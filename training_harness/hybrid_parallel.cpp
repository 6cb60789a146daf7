// The hybrid step (B global batch, b = B/N local, F backbone features, head layers l = 0..L-1
// with widths in_l -> out_l, rank r owning neuron slice S_l of each, padded width s_l):
//  1. backbone forward on the local b images -> features [b, F];
//  2. all-gather the features (block r = this rank's b rows) -> X_0 [B, F], and the labels;
//  3. per head layer: Z = X_l W[S_l]^T + bias[S_l] -> [B, |S_l|], ReLU except the last; all-gather
//     the slices (block r = [B, s_l], zero padded) and reassemble X_{l+1} [B, out_l];
//  4. softmax cross-entropy of the full logits [B, classes] on every rank (scale 1/B);
//  5. per head layer, last first: dZ = columns S_l of dX_{l+1} (times the ReLU mask);
//     dW[S_l] = dZ^T X_l, dbias = column sums (local, exact); partial dX_l = dZ W[S_l] [B, in_l];
//     reduce-scatter (sum) the partials: for l > 0 in blocks [B, s_{l-1}] per owner of a slice of
//     layer l-1, for l = 0 in sample rows, so rank r gets d(features) of its own b samples;
//  6. backbone backward; all-reduce (sum) of the backbone gradients in buckets; SGD on the
//     backbone and on this rank's head slices.
#include "training_harness/hybrid_parallel.hpp"

#include <algorithm>
#include <chrono>

#include "training_harness/gradient_buckets.hpp"
#include "training_harness/loss.hpp"

namespace ringlab::training {

HeadSlice head_slice(int outputs, int nranks, int rank) {
  HeadSlice slice;
  slice.width = (outputs + nranks - 1) / nranks;
  slice.first = std::min(outputs, rank * slice.width);
  slice.count = std::min(outputs, (rank + 1) * slice.width) - slice.first;
  return slice;
}

namespace {

struct HeadLayer {
  int inputs = 0;
  int outputs = 0;
  HeadSlice slice;
  std::unique_ptr<FullyConnected> fc;
  std::unique_ptr<Bias> bias;
  Tensor pre_bias, output;  // [B, count]: fc output, then bias (+ ReLU) output
};

// Copies columns [first, first + count) of row-major `source` [rows, columns] into block `block`
// ([rows, width], zero padded) of `blocks`.
void pack_columns(const float* source, int rows, int columns, int first, int count, int width, float* block) {
  for (int i = 0; i < rows; ++i) {
    float* target = block + static_cast<std::size_t>(i) * width;
    std::copy_n(source + static_cast<std::size_t>(i) * columns + first, count, target);
    std::fill(target + count, target + width, 0.0f);
  }
}

class HybridTrainer final : public Trainer {
 public:
  HybridTrainer(const TrainConfig& config, Communicator& comm, const Compute& compute)
      : config_(config),
        compute_(compute),
        nranks_(comm.size()),
        rank_(comm.rank()),
        collectives_(comm, config.algorithm, true, config.execute, config.tuning.get()),
        backbone_(build_backbone(config.model, config.seed)),
        sgd_(config.sgd) {
    const std::vector<int> widths = head_widths(config.model);
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      HeadLayer layer;
      layer.inputs = widths[l];
      layer.outputs = widths[l + 1];
      layer.slice = head_slice(layer.outputs, nranks_, rank_);
      layer.fc = std::make_unique<FullyConnected>(layer.inputs, layer.slice.count, layer.slice.first,
                                                  head_init_key(config.seed, static_cast<int>(l)));
      layer.bias = std::make_unique<Bias>(layer.slice.count);
      head_.push_back(std::move(layer));
    }
    backbone_parameters_ = backbone_.parameters();
    all_parameters_ = backbone_parameters_;
    for (HeadLayer& layer : head_) {
      all_parameters_.push_back(layer.fc->parameters()[0]);
      all_parameters_.push_back(layer.bias->parameters()[0]);
    }
    buckets_ = std::make_unique<GradientBuckets>(backbone_parameters_, config.bucket_bytes);
  }

  StepResult step(const Tensor& images, std::span<const std::uint8_t> labels) override {
    const auto start = std::chrono::steady_clock::now();
    const double comm_before = collectives_.seconds();
    const int batch = config_.global_batch;
    const Tensor& features = backbone_.forward(compute_, images);
    const int local = features.shape.n;
    const int feature_count = static_cast<int>(features.shape.per_sample());

    // 2. features and labels of the global batch
    inputs_.resize(head_.size() + 1);
    inputs_[0].resize({batch, feature_count, 1, 1});
    std::copy(features.data.begin(), features.data.end(),
              inputs_[0].data.begin() + static_cast<std::ptrdiff_t>(rank_) * local * feature_count);
    collectives_.allgather(inputs_[0].data);
    label_buffer_.assign(static_cast<std::size_t>(batch), 0.0f);
    for (int i = 0; i < local; ++i) label_buffer_[static_cast<std::size_t>(rank_ * local + i)] = labels[i];
    collectives_.allgather(label_buffer_);
    global_labels_.resize(label_buffer_.size());
    for (std::size_t i = 0; i < label_buffer_.size(); ++i) global_labels_[i] = static_cast<std::uint8_t>(label_buffer_[i]);

    // 3. head forward, slice by slice
    for (std::size_t l = 0; l < head_.size(); ++l) {
      HeadLayer& layer = head_[l];
      layer.fc->forward(compute_, inputs_[l], layer.pre_bias);
      layer.bias->forward(compute_, layer.pre_bias, layer.output);
      if (l + 1 < head_.size())
        for (float& value : layer.output.data) value = std::max(value, 0.0f);
      gather_slices(layer, inputs_[l + 1]);
    }

    // 4. loss on the full logits
    const LossResult loss =
        softmax_cross_entropy(inputs_.back(), global_labels_, 1.0f / static_cast<float>(batch), grad_);

    // 5. head backward; grad_ holds d(X_{l+1}) restricted to what this rank needs
    for (std::size_t l = head_.size(); l-- > 0;) {
      HeadLayer& layer = head_[l];
      const int count = layer.slice.count;
      grad_slice_.resize({batch, count, 1, 1});
      const bool last = l + 1 == head_.size();
      for (int i = 0; i < batch; ++i)
        for (int j = 0; j < count; ++j) {
          const std::size_t index = static_cast<std::size_t>(i) * count + j;
          const float incoming = last ? grad_.data[static_cast<std::size_t>(i) * layer.outputs + layer.slice.first + j]
                                      : grad_.data[static_cast<std::size_t>(i) * layer.slice.width + j];
          grad_slice_.data[index] = last || layer.output.data[index] > 0.0f ? incoming : 0.0f;
        }
      layer.bias->backward(compute_, layer.pre_bias, layer.output, grad_slice_, nullptr);
      layer.fc->backward(compute_, inputs_[l], layer.pre_bias, grad_slice_, &partial_);
      if (l > 0) {
        const HeadLayer& previous = head_[l - 1];
        const int width = previous.slice.width;
        scatter_buffer_.resize(static_cast<std::size_t>(nranks_) * batch * width);
        for (int q = 0; q < nranks_; ++q) {
          const HeadSlice owner = head_slice(previous.outputs, nranks_, q);
          pack_columns(partial_.data.data(), batch, layer.inputs, owner.first, owner.count, width,
                       scatter_buffer_.data() + static_cast<std::size_t>(q) * batch * width);
        }
        collectives_.reduce_scatter_sum(scatter_buffer_);
        grad_.resize({batch, width, 1, 1});
        std::copy_n(scatter_buffer_.begin() + static_cast<std::ptrdiff_t>(rank_) * batch * width,
                    static_cast<std::size_t>(batch) * width, grad_.data.begin());
      } else {
        collectives_.reduce_scatter_sum(partial_.data);
        grad_features_.resize(features.shape);
        std::copy_n(partial_.data.begin() + static_cast<std::ptrdiff_t>(rank_) * local * feature_count,
                    grad_features_.data.size(), grad_features_.data.begin());
      }
    }

    // 6. backbone backward, data-parallel gradients, update
    backbone_.backward(compute_, grad_features_, false);
    if (nranks_ > 1) buckets_->allreduce(collectives_);
    sgd_.step(all_parameters_);
    StepResult result;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.comm_seconds = collectives_.seconds() - comm_before;
    result.loss = loss.loss_sum / batch;
    result.accuracy = static_cast<double>(loss.correct) / batch;
    return result;
  }

  std::vector<float> gather_parameters() override {
    std::vector<float> all;
    for (const Parameter* parameter : backbone_parameters_)
      all.insert(all.end(), parameter->value.begin(), parameter->value.end());
    for (HeadLayer& layer : head_) {
      append_gathered_rows(all, layer.fc->parameters()[0]->value, layer.slice, layer.inputs, layer.outputs);
      append_gathered_rows(all, layer.bias->parameters()[0]->value, layer.slice, 1, layer.outputs);
    }
    return all;
  }

  TimedCollectives& collectives() override { return collectives_; }
  std::size_t gradient_buckets() const override { return buckets_->bucket_count(); }

 private:
  // All-gathers every rank's [B, count] slice as [B, width] blocks, then reassembles [B, outputs].
  void gather_slices(const HeadLayer& layer, Tensor& full) {
    const int batch = config_.global_batch;
    const int width = layer.slice.width;
    gather_buffer_.resize(static_cast<std::size_t>(nranks_) * batch * width);
    pack_columns(layer.output.data.data(), batch, layer.slice.count, 0, layer.slice.count, width,
                 gather_buffer_.data() + static_cast<std::size_t>(rank_) * batch * width);
    collectives_.allgather(gather_buffer_);
    full.resize({batch, layer.outputs, 1, 1});
    for (int q = 0; q < nranks_; ++q) {
      const HeadSlice owner = head_slice(layer.outputs, nranks_, q);
      for (int i = 0; i < batch; ++i)
        std::copy_n(gather_buffer_.begin() + (static_cast<std::ptrdiff_t>(q) * batch + i) * width, owner.count,
                    full.data.begin() + static_cast<std::ptrdiff_t>(i) * layer.outputs + owner.first);
    }
  }

  // All-gathers the rows [slice.first, +count) of a [outputs, row_length] array; appends all rows.
  void append_gathered_rows(std::vector<float>& all, const std::vector<float>& mine, const HeadSlice& slice,
                            int row_length, int outputs) {
    const std::size_t block = static_cast<std::size_t>(slice.width) * row_length;
    std::vector<float> buffer(block * static_cast<std::size_t>(nranks_), 0.0f);
    std::copy(mine.begin(), mine.end(), buffer.begin() + static_cast<std::ptrdiff_t>(rank_ * block));
    collectives_.allgather(buffer);
    all.insert(all.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(outputs) * row_length);
  }

  TrainConfig config_;
  const Compute& compute_;
  int nranks_, rank_;
  TimedCollectives collectives_;
  Sequential backbone_;
  std::vector<HeadLayer> head_;
  Sgd sgd_;
  std::vector<Parameter*> backbone_parameters_, all_parameters_;
  std::unique_ptr<GradientBuckets> buckets_;
  std::vector<Tensor> inputs_;  // X_0 .. X_L, X_L = logits
  std::vector<float> label_buffer_, gather_buffer_, scatter_buffer_;
  std::vector<std::uint8_t> global_labels_;
  Tensor grad_, grad_slice_, partial_, grad_features_;
};

}  // namespace

std::unique_ptr<Trainer> make_hybrid_trainer(const TrainConfig& config, Communicator& comm, const Compute& compute) {
  return std::make_unique<HybridTrainer>(config, comm, compute);
}

}  // namespace ringlab::training
