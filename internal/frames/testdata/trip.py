# trip.py follows one refresh job through the SDK under gdb and counts
# its stays: each time control enters a package of the SDK (a room),
# going down a call or coming back from one, is a stay; a stay in a
# package the trip had already left is a return. Only the SDK's packages
# are rooms: calls into the standard library and dependencies are in the
# walk's depth but are no stay.
#
# It reports four counts of one trip (refreshOnce in refresh_test.go:
# balances and two pages of transactions, with a transaction sync):
#
#   - every call: every call of the SDK's code, decoding the bank's
#     answers included (it grows with the answers' entries);
#   - distinct calls: each route (a caller and the function it calls)
#     once, with what it leads to;
#   - refresh's calls: what the job does itself: the calls refresh's
#     code makes into other packages, each visit one stay whatever it
#     does inside, and refresh's code called back (a loop's body);
#   - refresh's distinct calls: those, each route once. This is the
#     trip's count of stays: the orchestration's route, not the data.
#
# Run it from the repository root on a test binary built without inlining
# or optimisation, so that every call written in the source is a call:
#
#   go test -c -o /tmp/frames.test -gcflags=all='-N -l' ./internal/frames
#   gdb -batch -x internal/frames/testdata/trip.py --args /tmp/frames.test -test.run '^TestRefreshFrames$'
#
# Every function of the SDK's packages gets a breakpoint that records
# (its depth below refresh.(*Refresher).Refresh, its package) and goes
# on; the calls of the trip are then replayed as a walk down and up the
# call stack, and the packages it passes through, consecutive repeats
# merged, are the stays. Environment: TRIP_ENTRY names another entry
# function (the refresh step of an older version).
import os
import re
import gdb

SDK = "github.com/tppkit/psd2/"
ENTRY = os.environ.get("TRIP_ENTRY", SDK + "refresh.(*Refresher).Refresh")
ROOT = os.getcwd().rstrip("/") + "/"
PKGS = r"^github\.com/tppkit/psd2/[a-z]"
SKIP_FILES = re.compile(r"^(internal/frames|internal/testkit|sandbox)/")

events = []
armed = [False]


def package_of(frame):
    """The SDK package of frame, from its source file's directory, or None."""
    sal = frame.find_sal()
    if sal is None or sal.symtab is None:
        return None
    name = sal.symtab.fullname()
    if not name.startswith(ROOT):
        return None
    d = os.path.dirname(name[len(ROOT):])
    if d.startswith("internal/frames"):
        return None
    return d


class Entry(gdb.Breakpoint):
    def stop(self):
        armed[0] = True
        return False


class Probe(gdb.Breakpoint):
    where = None

    def stop(self):
        if not armed[0]:
            return False
        f = gdb.newest_frame()
        fn = f.function()
        # Only a function's first line, not a statement of another
        # function on the same line (a closure's).
        if fn is None or fn.symtab is None or (fn.symtab.fullname(), fn.line) != self.where:
            return False
        depth = 0
        g = f
        caller = None  # the nearest function of the SDK above f
        caller_pkg = [None]
        while g is not None and depth < 400:
            if depth > 0 and caller is None and package_of(g) is not None:
                caller, caller_pkg[0] = g.name(), package_of(g)
            if g.name() == ENTRY:
                pkg = package_of(f)
                if pkg is not None and depth > 0:
                    events.append((depth, pkg, f.name(), caller or ENTRY, caller_pkg[0] if caller else "refresh"))
                return False
            g = g.older()
            depth += 1
        return False


gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("handle SIGURG nostop noprint pass")
# Without asynchronous preemption: a signal that arrives while gdb steps
# over a breakpoint would make it report the call twice.
gdb.execute("set environment GODEBUG=asyncpreemptoff=1")
gdb.execute("handle SIGPIPE nostop noprint pass")

# A breakpoint on the first line of every function of the SDK's
# packages, by file and line (generic functions, whose names hold their
# type arguments, are found that way too).
out = gdb.execute("info functions " + PKGS, to_string=True)
places = set()
current = None
for line in out.splitlines():
    if line.startswith("File "):
        current = line[len("File "):].rstrip(":")
        continue
    m = re.match(r"^(\d+):\s", line)
    if not m or current is None or not current.startswith(ROOT):
        continue
    rel = current[len(ROOT):]
    if SKIP_FILES.match(rel):
        continue
    places.add((current, int(m.group(1))))
Entry(ENTRY, internal=True)
for file, line in sorted(places):
    try:
        b = Probe("%s:%d" % (file, line), internal=True)
    except gdb.error:
        continue
    b.where = (file, line)
gdb.execute("run")


def replay(events):
    """The stays of the walk the calls make, down and back up."""
    stack = ["refresh"]
    walk = ["refresh"]
    for depth, pkg, _, _, _ in events:
        while len(stack) > depth:
            stack.pop()
            if stack and stack[-1] is not None:
                walk.append(stack[-1])
        while len(stack) < depth:
            stack.append(None)
        stack.append(pkg)
        walk.append(pkg)
    while len(stack) > 1:
        stack.pop()
        if stack[-1] is not None:
            walk.append(stack[-1])
    return [p for i, p in enumerate(walk) if i == 0 or walk[i - 1] != p]


def distinct(events):
    """The calls of events but a call from a function to another that was
    made before, and what it called: each route taken once."""
    seen = set()
    out = []
    skip = None
    for e in events:
        depth, _, name, caller, _ = e
        if skip is not None:
            if depth > skip:
                continue
            skip = None
        if (caller, name) in seen:
            skip = depth
            continue
        seen.add((caller, name))
        out.append(e)
    return out


def report(label, events, walk=True):
    stays = replay(events)
    rooms = set()
    returns = 0
    counts = {}
    for p in stays:
        if p in rooms:
            returns += 1
        rooms.add(p)
        counts[p] = counts.get(p, 0) + 1
    print("TRIP %s: %d calls, %d stays in %d rooms, %d returns" % (label, len(events), len(stays), len(rooms), returns))
    print("TRIP %s rooms: %s" % (label, ", ".join(sorted(rooms))))
    print("TRIP %s stays per room: %s" % (label, ", ".join("%s %d" % kv for kv in sorted(counts.items(), key=lambda kv: -kv[1]))))
    if walk:
        print("TRIP %s walk: %s" % (label, " > ".join(stays)))


def orchestration(events):
    """The calls refresh's own code makes, and refresh's code called back
    (a loop's body): what the job does itself, each other package's
    visit one stay whatever it does inside."""
    return [e for e in events if e[1] == "refresh" or e[4] == "refresh"]


report("every call", events, walk=False)
report("distinct calls", distinct(events), walk=False)
report("refresh's calls", orchestration(events))
report("refresh's distinct calls", orchestration(distinct(events)))
