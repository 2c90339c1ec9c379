#!/usr/bin/python3
"""The glue's errors in PostgreSQL's message style: every ereport(ERROR) in
src/pg has an errcode; its primary message starts in lower case (or with
an SQL keyword) and ends without a period; a detail or hint is whole
sentences (a capital or an identifier first, a period last); and a hint names the fix, except where no fix is the user's
(out of memory, corrupt data, an internal error, a file of the
installation) or the message itself says it (what a value must be, a NULL refused).
The extension's PL/pgSQL functions are held to the same by
sql/dac_messages.sql.
Prints TAP lines.  Usage: python3 test/messages.py"""
import glob
import re
import sys

NO_FIX = ("ERRCODE_OUT_OF_MEMORY", "ERRCODE_DATA_CORRUPTED", "ERRCODE_INTERNAL_ERROR", "errcode_for_file_access")
SAYS_FIX = ("must be", "must not be NULL")


def strings(call, fn):
    """The first string literal passed to fn( in call, joined across adjacent literals."""
    m = re.search(r"\b" + fn + r"\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", call)
    return None if m is None else "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(1)))


def main():
    bad = []
    count = 0
    for path in sorted(glob.glob("src/pg/*.c")):
        src = open(path).read()
        for m in re.finditer(r"ereport\(ERROR,", src):
            # the call: up to the parenthesis that closes ereport(
            depth, i = 0, m.start()
            while True:
                c = src[i]
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif c == '"':
                    i += 1
                    while src[i] != '"':
                        i += 2 if src[i] == "\\" else 1
                i += 1
            call = src[m.start():i + 1]
            where = "%s:%d" % (path, src.count("\n", 0, m.start()) + 1)
            count += 1
            msg = strings(call, "errmsg")
            if "errcode" not in call:
                bad.append(where + ": no errcode")
            first = (msg or "").split(" ")[0]
            if msg is not None and ((msg[:1].isupper() and not first.isupper()) or msg.endswith(".")):
                bad.append(where + ": message not in lower case or ends with a period: " + msg)
            for fn in ("errdetail", "errhint"):
                s = strings(call, fn)
                word = (s or "").split(" ")[0]
                if s is not None and s != "%s" and not ((s[:1].isupper() or "_" in word) and s.endswith(".")):
                    bad.append("%s: %s is not whole sentences: %s" % (where, fn, s))
            hinted = re.search(r"\berrhint\(|\w+_hint\(\)", call)
            if not hinted and not any(c in call for c in NO_FIX) and not any(f in (msg or "") for f in SAYS_FIX):
                bad.append(where + ": no hint naming the fix: " + (msg or call[:60]))
    print("ok - %d errors of src/pg read" % count if count else "not ok - no ereport(ERROR) found")
    if bad:
        print("not ok - errors out of style:")
        for b in bad:
            print("#   " + b)
        return 1
    print("ok - each has an errcode, a message in style, and a hint where the fix is the user's")
    return 0


sys.exit(main())
