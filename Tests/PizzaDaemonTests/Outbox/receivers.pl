#!/usr/bin/perl
# The booted test's printer and webhook endpoint, inside the container (whose minimal root has perl-base and no
# python): an ESC/POS printer on 127.0.0.1:9100 that answers every status query "ready" and appends what it is sent
# to /root/printed, and an HTTP endpoint on 127.0.0.1:8080 that appends each request to /root/hooks and answers 200.
use strict;
use warnings;
use IO::Socket::INET;

sub server {
    my ($port) = @_;
    my $listener = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $port, Listen => 5, ReuseAddr => 1);
    die "listen $port: $!" unless $listener;
    return $listener;
}

sub append {
    my ($file, $bytes) = @_;
    open(my $out, ">>", $file) or die "$file: $!";
    binmode $out;
    print $out $bytes;
    close $out;
}

if (fork() == 0) {
    my $listener = server(9100);
    while (my $client = $listener->accept) {
        binmode $client;
        my $pending = "";
        while (sysread($client, my $chunk, 4096)) {
            $pending .= $chunk;
            while ($pending =~ s/^(.*?)\x10\x04.//s) {
                append("/root/printed", $1);
                syswrite($client, "\x12");
            }
        }
        append("/root/printed", $pending);
        close $client;
    }
    exit 0;
}

my $listener = server(8080);
while (my $client = $listener->accept) {
    binmode $client;
    my $request = "";
    while ($request !~ /\r\n\r\n/ && sysread($client, my $chunk, 4096)) { $request .= $chunk; }
    my ($length) = $request =~ /content-length:\s*(\d+)/i;
    my ($head, $body) = split(/\r\n\r\n/, $request, 2);
    $body //= "";
    while (length($body) < ($length // 0) && sysread($client, my $chunk, 4096)) { $body .= $chunk; }
    append("/root/hooks", "$head\n\n$body\n");
    syswrite($client, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    close $client;
}
