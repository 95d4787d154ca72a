// Tokenizer and TextStream on SentencePiece models the test trains in-process
// with SentencePiece's own trainer on data/tiny_stories.txt: a BPE model with
// byte fallback and Llama's settings (unknown 0, BOS 1, EOS 2, no
// normalization, digits split), and one with no BOS or EOS. SentencePiece's
// own processor, loaded from the same bytes, is the oracle for ids and pieces;
// the round trips, the control ids, the streaming rule and the refusals are
// checked against the text itself.
#include <topos/core/error.hpp>
#include <topos/text/tokenizer.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace topos {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const std::filesystem::path stories =
    std::filesystem::path(TOPOS_SOURCE_DIR) / "data/tiny_stories.txt";

// The serialized model SentencePiece's trainer makes of the stories with the
// options `extra` adds to the common ones.
std::string trained(const std::string& extra) {
    std::string model;
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--input=" + stories.string() +
            " --model_type=bpe --byte_fallback=true --normalization_rule_name=identity"
            " --remove_extra_whitespaces=false --split_digits=true --minloglevel=1 " +
            extra,
        nullptr,
        &model);
    if (!status.ok()) {
        ADD_FAILURE() << "SentencePiece could not train on " << stories << ": "
                      << status.ToString();
    }
    return model;
}

// The two models, trained once a process, and a folder for the files the
// tests write, removed at exit.
struct Models {
    std::string llama = trained("--vocab_size=1000");
    std::string no_ends = trained("--vocab_size=600 --bos_id=-1 --eos_id=-1");
    std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("topos_text_test_" + std::to_string(getpid()));

    Models() { std::filesystem::create_directories(folder); }

    Models(const Models&) = delete;
    Models& operator=(const Models&) = delete;

    ~Models() {
        std::error_code ignored;
        std::filesystem::remove_all(folder, ignored);
    }

    // A file of `bytes` in the folder.
    std::filesystem::path file(const std::string& name, const std::string& bytes) const {
        const auto path = folder / name;
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
};

const Models& models() {
    static const Models trained_once;
    return trained_once;
}

// SentencePiece's own processor on `serialized`: the oracle.
std::unique_ptr<sentencepiece::SentencePieceProcessor> oracle(const std::string& serialized) {
    auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->LoadFromSerializedProto(serialized);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return processor;
}

// The stories, one line each, blank lines left out.
std::vector<std::string> story_lines() {
    std::ifstream in(stories);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) {
            lines.push_back(line);
        }
    }
    return lines;
}

std::string whole_stories() {
    std::ifstream in(stories, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Texts with characters the stories never use, which the model spells byte by byte.
const std::vector<std::string> unseen = {
    "日本語のテキスト",
    "a smile 🙂 and a 🦊 fox",
    "Ελληνικά, русский, עברית",
    "tabs\tand\nnewlines\r\n",
    "  two leading spaces and two trailing  ",
    "",
    " ",
    "Zürich, 1234567 — 3½ × 2",
};

// The text a stream returns for `ids`, push by push, then finish.
std::vector<std::string> streamed(const Tokenizer& tokenizer,
                                  const std::vector<std::int64_t>& ids) {
    TextStream stream(tokenizer);
    std::vector<std::string> parts;
    for (const std::int64_t id : ids) {
        parts.push_back(stream.push(id));
    }
    parts.push_back(stream.finish());
    return parts;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& part : parts) {
        text += part;
    }
    return text;
}

// The id of `piece` in `tokenizer`'s vocabulary.
std::int64_t id_of(const Tokenizer& tokenizer, const std::string& piece) {
    for (std::size_t id = 0; id < tokenizer.vocabulary(); ++id) {
        if (tokenizer.piece(static_cast<std::int64_t>(id)) == piece) {
            return static_cast<std::int64_t>(id);
        }
    }
    ADD_FAILURE() << "no piece " << piece;
    return 0;
}

TEST(Tokenizer, EncodesAsSentencePieceDoes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto processor = oracle(models().llama);
    auto texts = story_lines();
    texts.insert(texts.end(), unseen.begin(), unseen.end());
    texts.push_back(whole_stories());
    for (const auto& text : texts) {
        const std::vector<int> expected = processor->EncodeAsIds(text);
        EXPECT_EQ(tokenizer.encode(text, Ends::None),
                  std::vector<std::int64_t>(expected.begin(), expected.end()))
            << text;
    }
}

TEST(Tokenizer, DecodesWhatItEncodes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    auto texts = story_lines();
    texts.insert(texts.end(), unseen.begin(), unseen.end());
    texts.push_back(whole_stories());
    for (const auto& text : texts) {
        for (const Ends ends : {Ends::None, Ends::Bos, Ends::BosEos}) {
            EXPECT_EQ(tokenizer.decode(tokenizer.encode(text, ends)), text) << text;
        }
    }
}

TEST(Tokenizer, DecodesAsSentencePieceDoes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto processor = oracle(models().llama);
    std::mt19937 random(7);
    std::uniform_int_distribution<int> any_id(0, static_cast<int>(tokenizer.vocabulary()) - 1);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int> ids(static_cast<std::size_t>(trial % 17));
        for (auto& id : ids) {
            id = any_id(random);
        }
        EXPECT_EQ(tokenizer.decode(std::vector<std::int64_t>(ids.begin(), ids.end())),
                  processor->DecodeIds(ids));
    }
}

TEST(Tokenizer, SpellsUnseenCharactersByTheirUtf8Bytes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    std::vector<std::string> pieces;
    for (const std::int64_t id : tokenizer.encode("日🙂", Ends::None)) {
        pieces.push_back(tokenizer.piece(id));
        EXPECT_EQ(tokenizer.is_byte(id), pieces.back().starts_with("<0x")) << pieces.back();
    }
    EXPECT_THAT(
        pieces,
        ElementsAre("▁", "<0xE6>", "<0x97>", "<0xA5>", "<0xF0>", "<0x9F>", "<0x99>", "<0x82>"));
}

TEST(Tokenizer, PutsTheControlIdsEndsAsksFor) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    ASSERT_EQ(tokenizer.bos(), 1);
    ASSERT_EQ(tokenizer.eos(), 2);
    EXPECT_EQ(tokenizer.unknown(), 0);
    const std::string text = "Once upon a time, a small gray cat.";
    const auto bare = tokenizer.encode(text, Ends::None);
    ASSERT_FALSE(bare.empty());
    auto with_bos = bare;
    with_bos.insert(with_bos.begin(), 1);
    auto with_both = with_bos;
    with_both.push_back(2);
    EXPECT_EQ(tokenizer.encode(text), with_bos);  // Ends::Bos by default
    EXPECT_EQ(tokenizer.encode(text, Ends::Bos), with_bos);
    EXPECT_EQ(tokenizer.encode(text, Ends::BosEos), with_both);
    EXPECT_EQ(tokenizer.encode("", Ends::BosEos), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(tokenizer.decode(std::vector<std::int64_t>{1, 2, 1}), "");
}

TEST(Tokenizer, SaysWhenTheModelHasNoControlIds) {
    const auto tokenizer = Tokenizer::from_bytes(models().no_ends);
    EXPECT_EQ(tokenizer.bos(), std::nullopt);
    EXPECT_EQ(tokenizer.eos(), std::nullopt);
    const std::string text = "The fox sat down in the moonlight.";
    EXPECT_EQ(tokenizer.decode(tokenizer.encode(text, Ends::None)), text);
    EXPECT_THAT([&] { (void)tokenizer.encode(text); },
                ThrowsMessage<CheckpointError>(HasSubstr("no beginning-of-sequence id")));
    EXPECT_THAT([&] { (void)tokenizer.encode(text, Ends::BosEos); },
                ThrowsMessage<CheckpointError>(HasSubstr("no beginning-of-sequence id")));
}

TEST(Tokenizer, NamesEveryPieceAsTheVocabularyDoes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto processor = oracle(models().llama);
    ASSERT_EQ(tokenizer.vocabulary(), 1000U);
    ASSERT_EQ(tokenizer.vocabulary(), static_cast<std::size_t>(processor->GetPieceSize()));
    for (int id = 0; id < processor->GetPieceSize(); ++id) {
        EXPECT_EQ(tokenizer.piece(id), processor->IdToPiece(id));
        EXPECT_EQ(tokenizer.is_byte(id), processor->IsByte(id));
    }
    EXPECT_EQ(tokenizer.piece(0), "<unk>");
    EXPECT_EQ(tokenizer.piece(1), "<s>");
    EXPECT_EQ(tokenizer.piece(2), "</s>");
    EXPECT_EQ(tokenizer.decode(std::vector<std::int64_t>{id_of(tokenizer, "<0x0A>")}), "\n");
}

TEST(Tokenizer, OpensAModelFile) {
    const auto path = models().file("tokenizer.model", models().llama);
    const auto opened = Tokenizer::open(path);
    const auto given = Tokenizer::from_bytes(models().llama);
    EXPECT_EQ(opened.vocabulary(), given.vocabulary());
    for (const auto& line : story_lines()) {
        EXPECT_EQ(opened.encode(line), given.encode(line));
    }
}

TEST(Tokenizer, CopiesShareTheModelAndOutliveTheOriginal) {
    auto original = std::make_unique<Tokenizer>(Tokenizer::from_bytes(models().llama));
    const Tokenizer copy = *original;
    Tokenizer moved = std::move(*original);
    original.reset();
    const std::string text = "Pip blinked slowly, which is how cats say hello.";
    EXPECT_EQ(copy.encode(text), moved.encode(text));
    EXPECT_EQ(copy.decode(copy.encode(text)), text);
}

TEST(Tokenizer, RefusesAMissingFileNamingIt) {
    const auto path = models().folder / "no_such_tokenizer.model";
    EXPECT_THAT([&] { (void)Tokenizer::open(path); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr(path.string()), HasSubstr("No such file or directory"))));
}

TEST(Tokenizer, RefusesAFileThatIsNotASentencePieceModel) {
    for (const std::string& bytes : {std::string("this is not a model\n"), std::string()}) {
        const auto path = models().file("garbage.model", bytes);
        EXPECT_THAT([&] { (void)Tokenizer::open(path); },
                    ThrowsMessage<CheckpointError>(
                        AllOf(HasSubstr(path.string()), HasSubstr("is not a SentencePiece model"))))
            << bytes;
    }
    EXPECT_THAT([] { (void)Tokenizer::from_bytes("\x0a\x05 junk"); },
                ThrowsMessage<CheckpointError>(HasSubstr("is not a SentencePiece model")));
}

TEST(Tokenizer, RefusesADirectorySayingWhatItIs) {
    EXPECT_THAT([] { (void)Tokenizer::open(models().folder); },
                ThrowsMessage<CheckpointError>(
                    AllOf(HasSubstr(models().folder.string()), HasSubstr("a directory"))));
}

TEST(Tokenizer, RefusesIdsOutsideTheVocabularyNamingThem) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    EXPECT_THAT(
        [&] {
            (void)tokenizer.decode(std::vector<std::int64_t>{5, 1000, 7});
        },
        ThrowsMessage<IndexError>(AllOf(HasSubstr("token id 1000"), HasSubstr("0 to 999"))));
    EXPECT_THAT([&] { (void)tokenizer.decode(std::vector<std::int64_t>{-1}); },
                ThrowsMessage<IndexError>(HasSubstr("token id -1")));
    EXPECT_THAT([&] { (void)tokenizer.decode(std::vector<std::int64_t>{std::int64_t{1} << 40}); },
                ThrowsMessage<IndexError>(HasSubstr("token id 1099511627776")));
    EXPECT_THAT([&] { (void)tokenizer.piece(1000); },
                ThrowsMessage<IndexError>(HasSubstr("token id 1000")));
    EXPECT_THROW((void)tokenizer.is_byte(-3), IndexError);
}

TEST(TextStream, JoinsIntoTheDecodeOfAllIds) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    auto texts = story_lines();
    texts.insert(texts.end(), unseen.begin(), unseen.end());
    texts.push_back(whole_stories());
    std::string bytes_only;  // 24,000 byte pieces in a row
    for (int repeat = 0; repeat < 1000; ++repeat) {
        bytes_only += "日本語のテキスト";
    }
    texts.push_back(bytes_only);
    for (const auto& text : texts) {
        const auto ids = tokenizer.encode(text, Ends::BosEos);
        EXPECT_EQ(joined(streamed(tokenizer, ids)), tokenizer.decode(ids)) << text;
    }
}

TEST(TextStream, DropsTheLeadingSpaceAsDecodeDoes) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto ids = tokenizer.encode("Once upon a time", Ends::None);
    ASSERT_EQ(tokenizer.piece(ids.front()).substr(0, 3), "▁");
    const auto parts = streamed(tokenizer, ids);
    EXPECT_FALSE(parts.front().starts_with(" ")) << parts.front();
    EXPECT_EQ(joined(parts), "Once upon a time");
}

TEST(TextStream, ReturnsACharacterWithItsLastByte) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto ids = tokenizer.encode("日🙂 and é", Ends::None);
    std::vector<std::string> pieces;
    for (const std::int64_t id : ids) {
        pieces.push_back(tokenizer.piece(id));
    }
    // "▁" (the leading space decode drops), 日 in three bytes, 🙂 in four.
    ASSERT_GE(pieces.size(), 8U);
    ASSERT_THAT(
        std::vector<std::string>(pieces.begin(), pieces.begin() + 8),
        ElementsAre("▁", "<0xE6>", "<0x97>", "<0xA5>", "<0xF0>", "<0x9F>", "<0x99>", "<0x82>"));
    const auto parts = streamed(tokenizer, ids);
    EXPECT_THAT(std::vector<std::string>(parts.begin(), parts.begin() + 8),
                ElementsAre("", "", "", "日", "", "", "", "🙂"));
    EXPECT_EQ(joined(parts), "日🙂 and é");
}

TEST(TextStream, FinishReleasesAnUnfinishedCharacterAndStartsAfresh) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    TextStream stream(tokenizer);
    const std::vector<std::int64_t> half = {id_of(tokenizer, "<0xE6>"), id_of(tokenizer, "<0x97>")};
    EXPECT_EQ(stream.push(half[0]), "");
    EXPECT_EQ(stream.push(half[1]), "");
    EXPECT_EQ(stream.finish(), tokenizer.decode(half));
    EXPECT_EQ(stream.finish(), "");
    const auto ids = tokenizer.encode("Once", Ends::None);
    EXPECT_EQ(joined(streamed(tokenizer, ids)), "Once");
    std::string again;
    for (const std::int64_t id : ids) {
        again += stream.push(id);
    }
    EXPECT_EQ(again + stream.finish(), "Once");
}

TEST(TextStream, RefusesAnIdOutsideTheVocabularyAndCarriesOn) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    const auto ids = tokenizer.encode("The little train went up the mountain.");
    TextStream stream(tokenizer);
    std::string text = stream.push(ids[0]) + stream.push(ids[1]);
    EXPECT_THAT([&] { (void)stream.push(1000); },
                ThrowsMessage<IndexError>(HasSubstr("token id 1000")));
    for (std::size_t at = 2; at < ids.size(); ++at) {
        text += stream.push(ids[at]);
    }
    EXPECT_EQ(text + stream.finish(), tokenizer.decode(ids));
}

// Random ids, most of them bytes that may or may not make characters (lead
// bytes, continuation bytes, ASCII), the rest any piece: what a sampling model
// may produce. Every stream joins into decode, and no push splits a character.
TEST(TextStream, JoinsIntoTheDecodeOfRandomIds) {
    const auto tokenizer = Tokenizer::from_bytes(models().llama);
    std::vector<std::int64_t> bytes;
    for (const char* piece : {"<0x41>",
                              "<0x0A>",
                              "<0xC3>",
                              "<0xA9>",
                              "<0xE2>",
                              "<0x82>",
                              "<0xAC>",
                              "<0xF0>",
                              "<0x9F>",
                              "<0x99>",
                              "<0x80>",
                              "<0xFF>"}) {
        bytes.push_back(id_of(tokenizer, piece));
    }
    std::mt19937 random(11);
    std::uniform_int_distribution<std::int64_t> any_id(
        0, static_cast<std::int64_t>(tokenizer.vocabulary()) - 1);
    std::uniform_int_distribution<std::size_t> any_byte(0, bytes.size() - 1);
    std::bernoulli_distribution a_byte(0.7);
    for (int trial = 0; trial < 500; ++trial) {
        std::vector<std::int64_t> ids(static_cast<std::size_t>(trial % 61));
        for (auto& id : ids) {
            id = a_byte(random) ? bytes[any_byte(random)] : any_id(random);
        }
        const auto parts = streamed(tokenizer, ids);
        EXPECT_EQ(joined(parts), tokenizer.decode(ids));
        for (const auto& part : parts) {
            // A part never starts with a continuation byte: characters come whole.
            EXPECT_TRUE(part.empty() || (static_cast<unsigned char>(part[0]) & 0xC0U) != 0x80U);
        }
    }
}

}  // namespace
}  // namespace topos
