"""A direct, recursive transcription of Buchheim, Jünger and Leipert (2002), Figs. 1-3: the test oracle
for the iterative, compiled ``engine.trees.layout.tidy_layout`` (small trees only)."""

from __future__ import annotations


def reference_layout(children: list[list[int]], root: int) -> dict[int, float]:
    parent = {root: None}
    for v, cs in enumerate(children):
        for c in cs:
            parent[c] = v
    number = {}
    for cs in children:
        for i, c in enumerate(cs, 1):
            number[c] = i
    number[root] = 1
    mod = {v: 0.0 for v in parent}
    thread = {v: None for v in parent}
    ancestor = {v: v for v in parent}
    change = {v: 0.0 for v in parent}
    shift = {v: 0.0 for v in parent}
    prelim = {v: 0.0 for v in parent}

    def left_sibling(v):
        p = parent[v]
        return None if p is None or number[v] == 1 else children[p][number[v] - 2]

    def leftmost_sibling(v):
        p = parent[v]
        return v if p is None else children[p][0]

    def next_left(v):
        return children[v][0] if children[v] else thread[v]

    def next_right(v):
        return children[v][-1] if children[v] else thread[v]

    def move_subtree(wm, wp, s):
        subtrees = number[wp] - number[wm]
        change[wp] -= s / subtrees
        shift[wp] += s
        change[wm] += s / subtrees
        prelim[wp] += s
        mod[wp] += s

    def execute_shifts(v):
        s = c = 0.0
        for w in reversed(children[v]):
            prelim[w] += s
            mod[w] += s
            c += change[w]
            s += shift[w] + c

    def anc(vim, v, default):
        return ancestor[vim] if parent[ancestor[vim]] == parent[v] else default

    def apportion(v, default):
        w = left_sibling(v)
        if w is not None:
            vip = vop = v
            vim = w
            vom = leftmost_sibling(vip)
            sip, sop, sim, som = mod[vip], mod[vop], mod[vim], mod[vom]
            while next_right(vim) is not None and next_left(vip) is not None:
                vim, vip = next_right(vim), next_left(vip)
                vom, vop = next_left(vom), next_right(vop)
                ancestor[vop] = v
                s = (prelim[vim] + sim) - (prelim[vip] + sip) + 1.0
                if s > 0:
                    move_subtree(anc(vim, v, default), v, s)
                    sip += s
                    sop += s
                sim += mod[vim]
                sip += mod[vip]
                som += mod[vom]
                sop += mod[vop]
            if next_right(vim) is not None and next_right(vop) is None:
                thread[vop] = next_right(vim)
                mod[vop] += sim - sop
            if next_left(vip) is not None and next_left(vom) is None:
                thread[vom] = next_left(vip)
                mod[vom] += sip - som
                default = v
        return default

    def first_walk(v):
        if not children[v]:
            w = left_sibling(v)
            prelim[v] = prelim[w] + 1.0 if w is not None else 0.0
        else:
            default = children[v][0]
            for w in children[v]:
                first_walk(w)
                default = apportion(w, default)
            execute_shifts(v)
            mid = 0.5 * (prelim[children[v][0]] + prelim[children[v][-1]])
            w = left_sibling(v)
            if w is not None:
                prelim[v] = prelim[w] + 1.0
                mod[v] = prelim[v] - mid
            else:
                prelim[v] = mid

    x = {}

    def second_walk(v, m):
        x[v] = prelim[v] + m
        for w in children[v]:
            second_walk(w, m + mod[v])

    first_walk(root)
    second_walk(root, 0.0)
    lo = min(x.values())
    return {v: xv - lo for v, xv in x.items()}
