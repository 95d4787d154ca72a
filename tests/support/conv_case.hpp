// A convolution's geometry for the pattern tests: image, filters, stride,
// padding and dilation, and how a failure names it.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>

namespace topos::test {

struct ConvCase {
    std::size_t batch, channels, filters, height, width, kernel, stride, padding, dilation;

    std::string text() const {
        std::ostringstream out;
        out << "image [" << batch << ", " << channels << ", " << height << ", " << width
            << "], filters " << filters << "x" << kernel << "x" << kernel << ", stride " << stride
            << ", padding " << padding << ", dilation " << dilation;
        return out.str();
    }
};

}  // namespace topos::test
