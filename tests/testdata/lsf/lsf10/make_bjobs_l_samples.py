#!/usr/bin/env python3
"""Writes bjobs_l.txt and bjobs_l_year.txt of this folder: *constructed*
`bjobs -a -l -u alice` output in the LSF 10.1 layout (see
tests/testdata/README.md). No LSF 10.1 cluster was at hand and the simulator
does not print bjobs -l, so the text is built here: the fields and sentences
are those of volclava 2.2's bjobs -l (same code family) and of public LSF 10.x
outputs, and the long lines are wrapped the way Platform's prtLine
(openlava lsbatch/cmd/cmd.misc.c) does it, which is what LSF 10.1 prints:
79 columns per physical line, continuation lines indented by as many blanks
as the "Tue Dec  1 10:40:47: " prefix is wide (21; 26 with LSB_DISPLAY_YEAR),
cuts anywhere (mid-word too), and a blank that would open a continuation line
dropped. Run from anywhere: python3 make_bjobs_l_samples.py
"""
import os

WIDTH = 80  # prtLine's WIDTH: the cursor starts at 1, so lines hold 79 chars


def prt_line(text, indent):
    """Platform's prtLine on one logical line (no '\\n' inside)."""
    out, cursor = [], 1
    i = 0
    while i < len(text):
        if cursor == WIDTH:
            out.append('\n' + ' ' * indent)
            cursor = indent + 1
            if text[i] == ' ':
                i += 1
                continue
        out.append(text[i])
        cursor += 1
        i += 1
    return ''.join(out) + '\n'


SCHED = (
    "\n SCHEDULING PARAMETERS:\n"
    "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
    " loadSched   -     -     -     -       -     -    -     -     -      -      -  \n"
    " loadStop    -     -     -     -       -     -    -     -     -      -      -  \n")


def resreq(indent, effective):
    combined = " Combined: select[type == local && (hname != login1)] order[-slots:-maxslots:-mem] rusage[mem=1024.00]"
    text = "\n RESOURCE REQUIREMENT DETAILS:\n" + prt_line(combined, indent)
    if effective:
        return text + prt_line(combined.replace("Combined", "Effective"), indent)
    return text + " Effective: -\n"


def block(header, events, tail, indent):
    text = "\n" + prt_line(header, indent)
    for event in events:
        text += prt_line(event, indent) if event else "\n"
    return text + tail


def samples(year):
    t = (lambda hms: "Tue Dec  1 %s 2026" % hms) if year else (lambda hms: "Tue Dec  1 %s" % hms)
    indent = 26 if year else 21
    jobs = []
    jobs.append(block(
        "Job <3101>, Job Name <bplace-build>, User <alice>, Project <default>, Status <DONE>, "
        "Queue <normal>, Job Priority <50>, Command <make -C /home/alice/src all>, Share group "
        "charged </alice>, Job Description <bplace:4f9c2d1e-8a7b-4c3d-9e0f-1a2b3c4d5e6f>",
        [t("10:40:47") + ": Submitted from host <login1>, CWD <$HOME/src>, Output File <build.%J.out>;",
         t("10:40:49") + ": Started 1 Task(s) on Host(s) <node001>, Allocated 1 Slot(s) on Host(s) "
         "<node001>, Execution Home </home/alice>, Execution CWD </home/alice/src>;",
         t("10:41:02") + ": Done successfully. The CPU time used is 12.4 seconds.",
         t("10:41:02") + ": Post job process done successfully.",
         "",
         " MEMORY USAGE:",
         " MAX MEM: 61 Mbytes;  AVG MEM: 40 Mbytes; MEM Efficiency: 0.00%"],
        SCHED + resreq(indent, True), indent))
    jobs.append(block(
        "Job <3102>, User <alice>, Project <default>, Status <EXIT>, Queue <short>, Command <sh "
        "-c \"exit 3\">, Share group charged </alice>, Job Description <nightly <main>, retry 2 "
        "of 3, see <https://ci.example/j/77>>",
        [t("10:42:10") + ": Submitted from host <login1>, CWD <$HOME>;",
         t("10:42:12") + ": Started 1 Task(s) on Host(s) <node002>, Allocated 1 Slot(s) on Host(s) "
         "<node002>, Execution Home </home/alice>, Execution CWD </home/alice>;",
         t("10:42:12") + ": Exited with exit code 3. The CPU time used is 0.1 seconds.",
         t("10:42:12") + ": Completed <exit>."],
        SCHED + resreq(indent, True), indent))
    jobs.append(block(
        "Job <3103>, Job Name <wide>, User <alice>, Project <default>, Status <PEND>, Queue "
        "<normal>, Command <sleep 600>, Share group charged </alice>, Job Description <bplace:"
        "5d6e7f80-1234-4abc-8def-000000000003>",
        [t("10:43:00") + ": Submitted from host <login1>, CWD <$HOME>, 64 Task(s), Requested "
         "Resources <span[hosts=1]>;",
         " PENDING REASONS:",
         " Job's resource requirements not satisfied: 3 hosts;",
         " Closed by LSF administrator: 1 host;"],
        SCHED + resreq(indent, False), indent))
    jobs.append(block(
        "Job <3104[7]>, Job Name <sweep[7]>, User <alice>, Project <default>, Status <RUN>, "
        "Queue <normal>, Command <./sweep.sh 7>, Share group charged </alice>",
        [t("10:44:00") + ": Submitted from host <login1>, CWD <$HOME/sweep>;",
         t("10:44:03") + ": Started 1 Task(s) on Host(s) <node003>, Allocated 1 Slot(s) on Host(s) "
         "<node003>, Execution Home </home/alice>, Execution CWD </home/alice/sweep>;",
         t("10:44:33") + ": Resource usage collected.",
         " " * indent + "The CPU time used is 25 seconds.",
         " " * indent + "MEM: 6 Mbytes;  SWAP: 0 Mbytes;  NTHREAD: 4",
         " " * indent + "PGID: 41100;  PIDs: 41100 41101 41102"],
        SCHED + resreq(indent, True), indent))
    jobs.append(block(
        "Job <3105>, User <alice>, Project <default>, Status <EXIT>, Queue <normal>, Command "
        "<sleep 600>, Share group charged </alice>, Job Description <bplace:0badc0de-0000-4000-"
        "8000-000000000005>",
        [t("10:45:00") + ": Submitted from host <login1>, CWD <$HOME>;",
         t("10:45:20") + ": Exited",
         t("10:45:20") + ": Completed <exit>; TERM_OWNER: job killed by owner."],
        SCHED + resreq(indent, False), indent))
    separator = "-" * 78 + "\n"
    return separator.join(jobs) + "\n"


here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "bjobs_l.txt"), "w", newline="") as f:
    f.write(samples(year=False))
with open(os.path.join(here, "bjobs_l_year.txt"), "w", newline="") as f:
    # The first two jobs are enough for the 26-blank indent.
    text = samples(year=True)
    f.write(text[:text.index("-" * 78 + "\n", text.index("Job <3102>"))] + "\n")
