#include "core/rules/descriptor.hpp"

namespace tilegen {

int Descriptor::specificity() const {
    int n = 0;
    for (int r = 0; r < size_; ++r)
        for (int c = 0; c < size_; ++c)
            if (cell(c, r) != kAnyClass) ++n;
    return n;
}

Descriptor Descriptor::rotated() const {
    // Clockwise: the new cell (c, r) is the old cell (r, size-1-c).
    Descriptor out(size_);
    for (int r = 0; r < size_; ++r)
        for (int c = 0; c < size_; ++c)
            out.set_cell(c, r, cell(r, size_ - 1 - c));
    return out;
}

Descriptor Descriptor::mirrored() const {
    Descriptor out(size_);
    for (int r = 0; r < size_; ++r)
        for (int c = 0; c < size_; ++c)
            out.set_cell(c, r, cell(size_ - 1 - c, r));
    return out;
}

} // namespace tilegen
