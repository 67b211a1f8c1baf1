// Union-find over labels (connected-component labelling): Parents (a std::vector, or GridCells
// from the grid pool) of label -> parent label. Invariant: a label's parent is never above the
// label itself (a union hangs the larger root under the smaller), so the root of a set is its
// least label and one pass over the labels in increasing order flattens the forest (each label's
// parent is numbered before it). find halves the path it walks.
#pragma once

#include <utility>

namespace tilegen {

template <class Parents> struct LabelForest {
    using Label = typename Parents::value_type;
    Parents parent;
    Label find(Label a) {
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        return a;
    }
    // Joins the sets of a and b; returns the root of the union (the smaller root).
    Label join(Label a, Label b) {
        a = find(a);
        b = find(b);
        if (a > b) std::swap(a, b);
        parent[b] = a;
        return a;
    }
};

} // namespace tilegen
