// SentencePieceModel (sentencepiece_model.hpp): the calls into Google's
// SentencePiece library, each turning its util::Status into a topos error.
// The only source of topos that includes <sentencepiece_processor.h>.
#include "text/sentencepiece_model.hpp"

#include <topos/core/error.hpp>

#include <sentencepiece_processor.h>
#include <utility>

namespace topos::detail {

struct SentencePieceModel::Processor {
    sentencepiece::SentencePieceProcessor processor;
};

SentencePieceModel::SentencePieceModel(std::unique_ptr<Processor> processor)
    : processor_(std::move(processor)) {}

SentencePieceModel::~SentencePieceModel() = default;

std::shared_ptr<const SentencePieceModel> SentencePieceModel::load(std::string_view serialized,
                                                                   const std::string& source) {
    auto processor = std::make_unique<Processor>();
    const auto status = processor->processor.LoadFromSerializedProto(serialized);
    if (!status.ok()) {
        throw CheckpointError(
            source + " is not a SentencePiece model (tokenizer.model): " + status.ToString());
    }
    if (processor->processor.GetPieceSize() <= 0) {
        throw CheckpointError(
            source + " is not a SentencePiece model (tokenizer.model): " + "it holds no pieces");
    }
    return std::shared_ptr<const SentencePieceModel>(new SentencePieceModel(std::move(processor)));
}

std::vector<int> SentencePieceModel::encode(std::string_view text) const {
    std::vector<int> ids;
    const auto status = processor_->processor.Encode(text, &ids);
    if (!status.ok()) {
        throw Error("SentencePiece could not encode the text: " + status.ToString());
    }
    return ids;
}

std::string SentencePieceModel::decode(const std::vector<int>& ids) const {
    std::string text;
    const auto status = processor_->processor.Decode(ids, &text);
    if (!status.ok()) {
        throw Error("SentencePiece could not decode the ids: " + status.ToString());
    }
    return text;
}

const std::string& SentencePieceModel::piece(int id) const {
    return processor_->processor.IdToPiece(id);
}

bool SentencePieceModel::is_byte(int id) const {
    return processor_->processor.IsByte(id);
}

int SentencePieceModel::size() const {
    return processor_->processor.GetPieceSize();
}

int SentencePieceModel::bos() const {
    return processor_->processor.bos_id();
}

int SentencePieceModel::eos() const {
    return processor_->processor.eos_id();
}

int SentencePieceModel::unknown() const {
    return processor_->processor.unk_id();
}

}  // namespace topos::detail
