/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The guac subcommands; each parses its own options and returns an exit code. */
#ifndef GUAC_CMDS_H
#define GUAC_CMDS_H

int guac_cmd_gen(int argc, char **argv);
int guac_cmd_verify(int argc, char **argv);
int guac_cmd_bench(int argc, char **argv);
int guac_cmd_write(int argc, char **argv);
int guac_cmd_manifest(int argc, char **argv);
int guac_cmd_doctor(int argc, char **argv);
int guac_cmd_report(int argc, char **argv);
int guac_cmd_probe(int argc, char **argv);

#endif /* GUAC_CMDS_H */
