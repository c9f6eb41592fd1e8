#pragma once
// mfprio's man page and bash completion, generated from the command table (cli_main.hpp):
// the same option rows the parsers take and --help prints, so that the three cannot drift.
// `mfprio_docs man` and `mfprio_docs bash` (docs_main.cpp) print them at build time.
#include <string>
#include <string_view>

#include "cli_main.hpp"

namespace mfprio::cli {

namespace detail {
/// Text for roff: backslashes and hyphen-minus escaped, a line starting with '.' or '\''
/// guarded, so that it prints as written.
inline std::string roff_text(std::string_view text) {
    std::string out;
    bool line_start = true;
    for (const char ch : text) {
        if (line_start && (ch == '.' || ch == '\'')) out += "\\&";
        if (ch == '\\') out += "\\e";
        else if (ch == '-') out += "\\-";
        else out += ch;
        line_start = ch == '\n';
    }
    return out;
}
} // namespace detail

/// The man page mfprio(1): the commands with their summaries, then each command's --help
/// as it prints it (its usage, every option, its examples), preformatted.
inline std::string render_man() {
    using detail::roff_text;
    std::string out = ".TH MFPRIO 1 \"\" \"" + roff_text(version_text()) + "\" \"User Commands\"\n";
    out += ".SH NAME\nmfprio \\- multifactor job priority as Slurm, Maui and Flux compute it\n";
    out += ".SH SYNOPSIS\n.B mfprio\n[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]\n.br\n.B mfprio help\n\\fICOMMAND\\fR\n";
    std::string description(main_description);
    for (char& ch : description)
        if (ch == '\n') ch = ' ';
    out += ".SH DESCRIPTION\n" + roff_text(description) + "\n";
    out += ".PP\nWithout a command, mfprio runs \\fBdemo\\fR.\n";
    out += ".SH COMMANDS\n";
    for (const command& c : commands) out += ".TP\n.B " + roff_text(c.name) + "\n" + roff_text(c.summary) + "\n";
    out += ".SH OPTIONS\n.TP\n.BR \\-\\-help \", \" \\-h\nthe commands; \\fBmfprio help\\fR \\fICOMMAND\\fR or "
           "\\fBmfprio\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR: every option of a command\n"
           ".TP\n.BR \\-\\-version \", \" \\-V\nthe version\n";
    for (const command& c : commands) {
        out += ".SS mfprio " + roff_text(c.name) + "\n.nf\n";
        std::string_view help = c.help;
        if (help.ends_with('\n')) help.remove_suffix(1);
        out += roff_text(help) + "\n.fi\n";
    }
    out += ".SH EXIT STATUS\n" + roff_text(main_exit_status) + "\n";
    out += ".SH SEE ALSO\n.BR sprio (1),\n.BR sshare (1),\n.BR slurm.conf (5)\n";
    return out;
}

/// The bash completion of mfprio: the commands, each command's options, after an option
/// that takes a value its words where it has a list of them (`option_row::values`), else a
/// file name.
inline std::string render_bash_completion() {
    std::string names;
    for (const command& c : commands) {
        if (!names.empty()) names += ' ';
        names.append(c.name);
    }
    std::string out = "# bash completion for mfprio, generated from its option lists\n"
                      "_mfprio() {\n"
                      "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts='' values=''\n"
                      "    if ((COMP_CWORD == 1)); then\n"
                      "        COMPREPLY=($(compgen -W '" + names + " help --help -h --version -V' -- \"$cur\"))\n"
                      "        return\n"
                      "    fi\n"
                      "    case ${COMP_WORDS[1]} in\n"
                      "    help)\n"
                      "        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W '" + names + "' -- \"$cur\"))\n"
                      "        return\n"
                      "        ;;\n";
    for (const command& c : commands) {
        std::string opts, values, words;
        for (const option_spelling& s : c.spellings) {
            if (!s.values.empty()) {
                words += "        ";
                words.append(s.name);
                words += ") COMPREPLY=($(compgen -W '";
                words.append(s.values);
                words += "' -- \"$cur\")); return ;;\n";
            }
            if (!opts.empty()) opts += ' ';
            opts.append(s.name);
            if (s.takes_value) {
                values += ' ';
                values.append(s.name);
            }
        }
        out += "    " + std::string(c.name) + ")\n        opts='" + opts + "'\n        values='" + values + "'\n";
        if (!words.empty()) out += "        case $prev in\n" + words + "        esac\n";
        out += "        ;;\n";
    }
    out += "    *) return ;;\n"
           "    esac\n"
           "    case \" $values \" in\n"
           "    *\" $prev \"*)\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "        return\n"
           "        ;;\n"
           "    esac\n"
           "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "}\n"
           "complete -o bashdefault -o default -F _mfprio mfprio\n";
    return out;
}

} // namespace mfprio::cli
