// The errors topos throws. Every user mistake surfaces as one of these, derived
// from topos::Error (a std::runtime_error), with a message that says what went
// wrong and how to fix the call. The library never aborts on user error.
#pragma once

#include <stdexcept>
#include <string>

namespace topos {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A record-time shape check failed; nothing was appended to the tape.
class ShapeError : public Error {
public:
    using Error::Error;
};

// A feed has the wrong shape, or names something that is not an input.
class FeedError : public Error {
public:
    using Error::Error;
};

// A value was read that the run's declaration does not make readable.
class ReadError : public Error {
public:
    using Error::Error;
};

// A symbol was used against a network it does not belong to.
class SymbolError : public Error {
public:
    using Error::Error;
};

// A tape was used after it was sealed, or in a way its state forbids.
class TapeError : public Error {
public:
    using Error::Error;
};

// A derivative was asked of something that has none (e.g. a non-scalar target).
class GradientError : public Error {
public:
    using Error::Error;
};

// An index value is outside the range its operation allows (a run-time check).
class IndexError : public Error {
public:
    using Error::Error;
};

// An entry's declaration is inconsistent (e.g. an empty root list).
class EntryError : public Error {
public:
    using Error::Error;
};

// A plan could not be written as StableHLO text.
class EmitError : public Error {
public:
    using Error::Error;
};

// A checkpoint file is malformed or does not match the network.
class CheckpointError : public Error {
public:
    using Error::Error;
};

// A CSV file is not a readable table of numbers (data::read_csv).
class CsvError : public Error {
public:
    using Error::Error;
};

// A .npy file is not an array read_npy reads, or write_npy cannot write it
// (data::read_npy, data::write_npy).
class NpyError : public Error {
public:
    using Error::Error;
};

}  // namespace topos
