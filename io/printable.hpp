// Text from input files, environment variables or the command line, made safe to echo on a
// terminal: control characters (C0, DEL, C1) become visible escapes ("\u001b" for ESC), and a
// byte that does not start valid UTF-8 becomes "\xNN", so a node named "\u001b[2J" cannot clear
// the screen or move the cursor. Valid printable UTF-8 passes unchanged.
#pragma once

#include <string>
#include <string_view>

namespace ringlab::io {

// `keep_line_breaks`: '\n' and '\t' pass unchanged (for multi-line messages).
std::string printable(std::string_view text, bool keep_line_breaks = false);

}  // namespace ringlab::io
