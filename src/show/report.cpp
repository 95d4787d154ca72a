// show::Report: one self-contained HTML5 document (XHTML-compatible: every
// element closed, attributes quoted, text escaped) holding the style sheet and
// every exhibit inline, laid out as sections under a table of contents or as
// tabs built from hidden radio inputs and their labels, with no script.
#include <topos/show/card.hpp>
#include <topos/show/report.hpp>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace topos::show {
namespace {

namespace fs = std::filesystem;

using Exhibits = std::vector<std::pair<std::string, Exhibit>>;

std::string exhibit_id(std::size_t position) {
    return "exhibit-" + std::to_string(position + 1);
}

std::string table_of_contents(const Exhibits& exhibits) {
    std::string toc = "<nav class=\"topos-toc\"><ol>";
    for (std::size_t i = 0; i < exhibits.size(); ++i) {
        toc += "<li><a href=\"#" + exhibit_id(i) + "\">" + escape(exhibits[i].first) + "</a></li>";
    }
    return toc + "</ol></nav>\n";
}

std::string sections(const Exhibits& exhibits) {
    std::string body = table_of_contents(exhibits);
    for (std::size_t i = 0; i < exhibits.size(); ++i) {
        body += "<section class=\"topos-exhibit\" id=\"" + exhibit_id(i) + "\"><h2>" +
                escape(exhibits[i].first) + "</h2>\n" + exhibits[i].second.html().html() +
                "\n</section>\n";
    }
    return body;
}

// Each exhibit is a radio input, its label and its panel, in that order: the
// style sheet shows the panel after a checked input's label, and a flex layout
// lines the labels up above the panels.
std::string tabs(const Exhibits& exhibits) {
    std::string body = "<div class=\"topos-tabs\">\n";
    for (std::size_t i = 0; i < exhibits.size(); ++i) {
        const std::string id = exhibit_id(i);
        const std::string title = escape(exhibits[i].first);
        body.append("<input type=\"radio\" name=\"topos-tab\" id=\"tab-")
            .append(id)
            .append(i == 0 ? "\" checked=\"checked\"/>" : "\"/>")
            .append("<label for=\"tab-")
            .append(id)
            .append("\">")
            .append(title)
            .append("</label><section class=\"topos-exhibit\" id=\"")
            .append(id)
            .append("\"><h2>")
            .append(title)
            .append("</h2>\n")
            .append(exhibits[i].second.html().html())
            .append("\n</section>\n");
    }
    return body + "</div>\n";
}

[[noreturn]] void fail(const fs::path& path, int error) {
    throw ShowError("cannot write the report " + path.string() + ": " + std::strerror(error));
}

// Beside the target, named by the process and a counter so that concurrent
// writes never share one.
fs::path temporary_beside(const fs::path& path) {
    static std::atomic<std::uint64_t> counter{0};
    // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "." + string.
    std::string name(".");
    name += path.filename().string();
    name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    return path.parent_path() / name;
}

// Writes `text` to `file`; the errno of the first failure, 0 on success.
int write_whole(const fs::path& file, const std::string& text) {
    std::FILE* stream = std::fopen(file.c_str(), "wb");
    if (stream == nullptr) {
        return errno;
    }
    int error = 0;
    if (std::fwrite(text.data(), 1, text.size(), stream) != text.size()) {
        error = errno != 0 ? errno : EIO;
    }
    if (std::fclose(stream) != 0 && error == 0) {
        error = errno != 0 ? errno : EIO;
    }
    return error;
}

}  // namespace

Report::Report(std::string title, Layout layout) : title_(std::move(title)), layout_(layout) {}

Report& Report::add(std::string title, Exhibit exhibit) {
    exhibits_.emplace_back(std::move(title), std::move(exhibit));
    return *this;
}

std::string Report::html() const {
    std::string body;
    if (exhibits_.empty()) {
        body = "<p class=\"topos-note\">no exhibits</p>\n";
    } else {
        body = layout_ == Layout::Tabs ? tabs(exhibits_) : sections(exhibits_);
    }
    const std::string title = escape(title_);
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>" +
           title + "</title>\n<style>" + style_sheet() + "</style>\n</head>\n" +
           "<body class=\"topos-report\">\n<h1>" + title + "</h1>\n" + body + "</body>\n</html>\n";
}

void Report::write(const fs::path& path) const {
    const std::string document = html();
    if (path.has_parent_path()) {
        std::error_code error;
        fs::create_directories(path.parent_path(), error);
        if (error) {
            fail(path, error.value());
        }
    }
    const fs::path temporary = temporary_beside(path);
    if (const int error = write_whole(temporary, document); error != 0) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        fail(path, error);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::error_code ignored;
        fs::remove(temporary, ignored);
        fail(path, error);
    }
}

}  // namespace topos::show
